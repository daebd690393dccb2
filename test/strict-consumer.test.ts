/**
 * The package's declarations as a strict consumer compiles them: a user of
 * `durable-agents/worker` and `durable-agents` who never installed `ai` or `redis` (optional
 * peers) type-checks with `skipLibCheck` off. No server: only the compiler.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const run = promisify(execFile);

describe("the built declarations", () => {
  it("type-check for a consumer of durable-agents/worker that has no `ai` or `redis` installed, with skipLibCheck off", async () => {
    const project = mkdtempSync(join(tmpdir(), "durable-agents-consumer-"));
    try {
      const modules = join(project, "node_modules");
      // The package as installed: its manifest and its declarations, as `npm run build` emits
      // them. Without a second type check of the sources (`npm run typecheck` has done it):
      // the same declarations, in a third less time.
      await run(process.execPath, [`${root}node_modules/typescript/bin/tsc`, "-p", `${root}tsconfig.build.json`, "--emitDeclarationOnly", "--noCheck", "--outDir", join(modules, "durable-agents", "dist")]);
      copyFileSync(`${root}package.json`, join(modules, "durable-agents", "package.json"));
      // Everything else this repository installed, but not the AI SDK or node-redis (optional peers).
      const optionalPeer = (name: string) => name === "ai" || name.startsWith("@ai-sdk/") || name === "redis" || name.startsWith("@redis/");
      for (const name of readdirSync(`${root}node_modules`).filter((n) => !n.startsWith("."))) {
        const scoped = name.startsWith("@") ? readdirSync(`${root}node_modules/${name}`).map((n) => `${name}/${n}`) : [name];
        for (const dependency of scoped.filter((n) => !optionalPeer(n))) {
          mkdirSync(join(modules, dependency, ".."), { recursive: true });
          symlinkSync(`${root}node_modules/${dependency}`, join(modules, dependency));
        }
      }
      writeFileSync(
        join(project, "consumer.ts"),
        [
          'import { createAgentWorker, createToolWorker, openaiModel, type AgentWorkerOptions } from "durable-agents/worker";',
          "export const options: Partial<AgentWorkerOptions> = { model: openaiModel() };",
          "export const start = [createAgentWorker, createToolWorker];",
          'import { inProcessStreamTransport, type StreamTransport } from "durable-agents";',
          "export const transport: StreamTransport = inProcessStreamTransport();",
        ].join("\n"),
      );
      // Temporal's own declarations import `ms`, whose types only an ESM importer finds
      // (temporalio/sdk-typescript#1668): every strict Temporal user needs this line.
      writeFileSync(join(project, "ms.d.ts"), 'declare module "ms" { export type StringValue = string; }\n');
      const compilerOptions = { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, skipLibCheck: false, noEmit: true, types: ["node"] };
      writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["consumer.ts", "ms.d.ts"] }));
      expect(() => createRequire(join(project, "consumer.ts")).resolve("ai")).toThrow(/Cannot find module 'ai'/);
      expect(() => createRequire(join(project, "consumer.ts")).resolve("redis")).toThrow(/Cannot find module 'redis'/);

      const checked = await new Promise<{ code: number; stdout: string }>((resolve) => {
        execFile(process.execPath, [`${root}node_modules/typescript/bin/tsc`, "-p", project], (err, stdout) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout }));
      });
      expect(checked.stdout).toBe("");
      expect(checked.code).toBe(0);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  }, 240_000);
});
