/**
 * The released-API contract (etc/api-report.json): a public export, or a public member of an
 * exported class, interface or object type, that appears, disappears or changes fails here
 * until the report is regenerated, so the change is a diff a reviewer sees rather than a side
 * effect of a refactor.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { apiReport, packageProgram, publicEntries, reportOf, reportPath, unexportedTypes, type ApiReport } from "../../scripts/api-report.js";

/** What differs between two reports, entry by entry, as lines a person reads. */
function differences(committed: ApiReport, actual: ApiReport): string[] {
  const lines: string[] = [];
  for (const entry of new Set([...Object.keys(committed), ...Object.keys(actual)])) {
    const was = committed[entry] ?? {};
    const is = actual[entry] ?? {};
    for (const name of Object.keys(is)) if (!(name in was)) lines.push(`${entry}: ${name} added (${is[name]})`);
    for (const name of Object.keys(was)) if (!(name in is)) lines.push(`${entry}: ${name} removed (was ${was[name]})`);
    for (const name of Object.keys(is)) if (name in was && was[name] !== is[name]) lines.push(`${entry}: ${name} changed: ${is[name]}, was ${was[name]}`);
  }
  return lines;
}

/** What `read` makes of a program of one entry whose source is `code` (beside `others`, files it may import), read as the script reads the package. */
function withSource<T>(code: string, read: (program: ts.Program, entries: Map<string, string>) => T, others: Record<string, string> = {}): T {
  const dir = mkdtempSync(join(tmpdir(), "api-report-"));
  try {
    const file = join(dir, "entry.ts");
    writeFileSync(file, code);
    for (const [name, text] of Object.entries(others)) writeFileSync(join(dir, name), text);
    const files = [file, ...Object.keys(others).map((name) => join(dir, name))];
    const program = ts.createProgram(files, { target: ts.ScriptTarget.ES2022, strict: true, noEmit: true, noResolve: true, noLib: true, types: [] });
    return read(program, new Map([["fixture", file]]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The report of one entry whose source is `code`. */
const reportOfSource = (code: string): Record<string, string> => withSource(code, (program, entries) => reportOf(program, entries).fixture!);

describe("the public API report", () => {
  const program = packageProgram();
  const actual = apiReport(program);

  it("covers every entry package.json exports, each with names", () => {
    expect(Object.keys(actual).sort()).toEqual([...publicEntries().keys()].sort());
    for (const names of Object.values(actual)) expect(Object.keys(names).length).toBeGreaterThan(0);
    expect(actual["durable-agents"]!.AgentClient).toBe("class");
    expect(actual["durable-agents/worker"]!.createAgentWorker).toBe("function");
  });

  it("lists the public members of exported classes and interfaces, with their signatures", () => {
    const main = actual["durable-agents"]!;
    expect(main["ThreadsClient.state"]).toBe("method (options: ThreadTarget): Promise<ThreadView>");
    expect(main["AgentClient.state"]).toBe("method (options: RunTarget): Promise<RunState>");
    expect(main["AgentClient.approvals"]).toBe("readonly property: ApprovalInbox");
    expect(main["AgentClient.threads"]).toBe("getter: ThreadsClient");
    expect(main["AgentOptions.maxTurns"]).toBe("optional property: number");
    expect(main["SendMessageOptions"]).toBe("interface");
    expect(main["SendMessageOptions.prompt"]).toBe("property: string");
    expect(main["RunAuthorizeRequest"]).toMatch(/^type = \{ … \} & /);
    expect(main["RunAuthorizeRequest.threadId"]).toBe("optional property: never");
    expect(main["MaxTurnsError"]).toBe("class extends DurableAgentsError<MaxTurnsFields>");
    // What the API reference leaves out: `#private` fields and `@internal` members.
    const threadsClient = Object.keys(main).filter((name) => name.startsWith("ThreadsClient."));
    expect(threadsClient).not.toContain("ThreadsClient.#access");
    expect(threadsClient).not.toContain("ThreadsClient.openStream");
    // The browser client is a class and its route groups interfaces: each method is listed.
    const react = actual["durable-agents/react"]!;
    expect(react["AgentHttpClient"]).toBe("class");
    expect(react["AgentHttpClient.state"]).toBe("method (options: { runId: string } & HttpCallOptions): Promise<RunState>");
    expect(react["AgentHttpClient.threads"]).toBe("readonly property: ThreadsHttpClient");
    expect(react["ThreadsHttpClient.sendMessage"]).toMatch(/^method \(options: .*SendMessageOptions.*\): Promise<ThreadSendReply>$/);
    expect(react["ApprovalsHttpClient.decide"]).toMatch(/^method \(options: DecideOptions & HttpCallOptions\): Promise<ResumeResult>$/);
    // No checkout's absolute path in a type the checker inferred.
    expect(JSON.stringify(actual)).not.toContain("import(");
  });

  it("names no type of the package's own that no entry exports", () => {
    expect(unexportedTypes(program, publicEntries())).toEqual([]);
  });

  it("finds a type a public signature names that no entry exports, and only those", () => {
    const missing = withSource(
      `
      import type { Outside } from "some-package";
      import type { Hidden } from "./other.js";
      interface Secret { a: string }
      interface Kept { b: number }
      interface OnlyInternal { c: boolean }
      interface InBody { d: string }
      const helper = (x: number) => x;
      export interface Shown { e: number }
      export type { Kept };
      export interface Options extends Secret {
        shown: Shown;
        kept: Kept;
        outside: Outside;
        generic<T>(value: T): T;
        /** @internal */ wiring: OnlyInternal;
      }
      export function make(options: Options): Hidden { const local: InBody = { d: "" }; return local as never; }
      export class Store { #state: OnlyInternal = { c: true }; private also: OnlyInternal = { c: true }; read(): Promise<typeof helper> { return null!; } }
      export const made = make as (options: Options) => Kept;
    `,
      unexportedTypes,
      { "other.ts": "export interface Hidden { f: string }" },
    );
    expect(missing).toHaveLength(3);
    expect(missing[0]).toMatch(/^helper \(.*entry\.ts\), named by fixture: Store\.read$/);
    expect(missing[1]).toMatch(/^Hidden \(.*other\.ts\), named by fixture: make$/);
    expect(missing[2]).toMatch(/^Secret \(.*entry\.ts\), named by fixture: Options$/);
  });

  it("is what etc/api-report.json records", () => {
    const committed = JSON.parse(readFileSync(reportPath, "utf8")) as ApiReport;
    const changed = differences(committed, actual);
    expect(
      changed,
      `the public API changed:\n${changed.join("\n")}\nIf this is intended, run \`npm run api-report\` and commit etc/api-report.json.`,
    ).toEqual([]);
  });

  it("names an added, a removed and a changed export or member", () => {
    const was = { e: { a: "function", b: "class", "b.run": "method (): void", "b.stop": "method (): void" } };
    const is = { e: { a: "const", b: "class", "b.run": "method (id: string): void", c: "type" } };
    expect(differences(was, is)).toEqual([
      "e: c added (type)",
      "e: b.stop removed (was method (): void)",
      "e: a changed: const, was function",
      "e: b.run changed: method (id: string): void, was method (): void",
    ]);
  });

  it("keeps what is public and leaves out private, protected, #private, _-prefixed and @internal members", () => {
    const report = reportOfSource(`
      export interface Base { id: string }
      export class Store extends Object implements Base {
        readonly id: string;
        static readonly code = "X1";
        count = 0;
        #secret = 1;
        private hidden = 2;
        protected guarded = 3;
        _scratch = 4;
        /** @internal */ wiring(): void {}
        /** @deprecated Use \`run\`. */ go(): void {}
        constructor(id: string, public readonly label: string, private readonly inner: number) { super(); this.id = id; }
        get size(): number { return 0; }
        set size(value: number) {}
        get name(): string { return ""; }
        run(a: string): string;
        run(a: number, b?: boolean): number;
        run(a: string | number, b = false): string | number { return b ? a : a; }
        bound = (x: number): number => x;
        static make(options: { id: string } = { id: "" }): Store { return new Store(options.id, "", 0); }
      }
      export interface Options { /** Read. */ a?: number; readonly b: string; call(x: string): void; [key: string]: unknown }
      export type Shape = { c: boolean } & Options;
      export type Status = "a" | "b";
    `);
    expect(report).toEqual({
      Base: "interface",
      "Base.id": "property: string",
      Options: "interface",
      "Options.[key: string]": "index: unknown",
      "Options.a": "optional property: number",
      "Options.b": "readonly property: string",
      "Options.call": "method (x: string): void",
      Shape: "type = { … } & Options",
      "Shape.c": "property: boolean",
      Status: "type",
      Store: "class extends Object implements Base",
      "Store.bound": "property: (x: number) => number",
      "Store.constructor": "constructor (id: string, label: string, inner: number)",
      "Store.count": "property: number",
      "Store.go": "deprecated method (): void",
      "Store.id": "readonly property: string",
      "Store.label": "readonly property: string",
      "Store.name": "getter: string",
      "Store.run": "method (a: string): string; method (a: number, b?: boolean): number",
      "Store.size": "getter + setter: number",
      "Store.static code": "readonly property: \"X1\"",
      "Store.static make": "method (options?: { id: string }): Store",
    });
  });
});
