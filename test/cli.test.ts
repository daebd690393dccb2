/**
 * The `durable-agents` command against the suite's dev server and an in-process worker: its
 * output, its exit codes, and its refusals (every error prints its code and exits non-zero).
 * Command lines run in this process (test/cli-support.ts); following a thread's stream and
 * `dev` run the bin as `npm run build` emits it (test/cli-build.ts), spawned as an operator
 * would run it.
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { request as httpRequest, type Server } from "node:http";
import { networkInterfaces } from "node:os";
import { serve } from "@hono/node-server";
import { Connection } from "@temporalio/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { aesGcmCodec, defineAgent, defineTool, type AgentClient } from "../src/index.js";
import { createCodecServer } from "../src/http.js";
import { artifacts, bin, cliEnv, root, runCli } from "./cli-support.js";
import { encryptedWorker } from "./codec-support.js";
import { weatherAgent } from "./fixtures/agents.js";
import { linkFor, payoutAgent } from "./fixtures/approvals.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";
import { chatAgent } from "./thread-support.js";

/** Released by the test once the command has printed the tool's progress: the tool is still running then. */
let releaseReport: () => void = () => undefined;
const reportDone = () => new Promise<void>((resolve) => (releaseReport = resolve));
const buildReport = defineTool({
  name: "buildReport",
  description: "Builds a long report",
  input: z.object({ pages: z.number() }),
  async handler({ pages }, ctx) {
    const done = reportDone();
    ctx.progress({ page: 1, of: pages, note: "tab\there" });
    await done;
    return `report of ${pages} pages`;
  },
});
const reportAgent = defineAgent({ id: "cli-reports", model: "gpt-4.1-mini", system: "You write reports.", tools: [buildReport], maxTurns: 3 });

let h: Harness;
let agents: AgentClient;
let env: Record<string, string>;

beforeAll(async () => {
  h = await startHarness();
  const served = await h.worker([payoutAgent, weatherAgent, chatAgent, reportAgent], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } });
  agents = served.agents;
  env = cliEnv(h, served.taskQueue);
}, 240_000);
afterAll(() => h?.close());

/** Runs the command against the suite's server; never throws: the exit code is part of what is asserted. */
const cli = (args: string[], extraEnv: Record<string, string> = {}) => runCli(args, { ...env, ...extraEnv });

async function parkedRun(amount = 12) {
  const runId = uid("cli-run");
  h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount } }] }, { text: `paid ${amount}` }]);
  await agents.run(payoutAgent, { prompt: runId, runId });
  return linkFor(runId);
}

describe("durable-agents deferrals", () => {
  it("lists what is parked (table and --json), shows one record with its transcript tail and no token", async () => {
    const { runId, deferralId, token } = await parkedRun(12);
    // Visibility trails writes: wait until it lists the record (in process), then ask the command once.
    await vi.waitFor(async () => expect((await agents.deferrals.list({ agentId: "payouts", status: "deferred" })).deferrals.map((d) => d.deferralId)).toContain(deferralId), { timeout: 20_000, interval: 100 });
    const [listed, table, shown] = await Promise.all([cli(["--json", "deferrals", "list", "--agent", "payouts"]), cli(["deferrals", "list"]), cli(["deferrals", "show", deferralId])]);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).deferrals).toEqual(expect.arrayContaining([expect.objectContaining({ deferralId, runId, status: "deferred", agentId: "payouts" })]));
    expect(table.stdout).toMatch(/^DEFERRAL\s+STATUS\s+AGENT\s+AGE\s+EXPIRES/);
    expect(table.stdout).toContain(deferralId);

    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`run        ${runId}`);
    expect(shown.stdout).toContain('meta       {"requires":["payouts:approve"],"amount":12}');
    expect(shown.stdout).toContain('assistant: → askApproval({"amount":12})');
    expect(shown.stdout + shown.stderr).not.toContain(token);
  });

  it("resumes with a token and denies with a reason; refusals print their code and exit 1, usage mistakes exit 2", async () => {
    const [first, second] = await Promise.all([parkedRun(3), parkedRun(4)]);
    h.model.script(second.runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 4 } }] }, { text: "not paid" }]);
    // Commands that do not depend on each other run side by side.
    const [resumed, denied, forged, notJson, noSecret, unknown] = await Promise.all([
      cli(["deferrals", "resume", "--token", first.token, "--payload", '{"approved":true}', "--as", "carol"]),
      cli(["deferrals", "deny", second.deferralId, "--reason", "duplicate invoice"]),
      cli(["deferrals", "resume", "--token", `${first.token.slice(0, -4)}AAAA`, "--payload", "true"]),
      cli(["deferrals", "resume", "--token", first.token, "--payload", "{oops"]),
      cli(["deferrals", "resume", "--token", first.token, "--payload", "true"], { DEFERRAL_SECRET: "" }),
      cli(["deferrals", "show", "dfr:1:nobody"]),
    ]);
    expect(resumed).toMatchObject({ code: 0 });
    expect(resumed.stdout).toContain(`resumed: ${first.deferralId}`);
    expect(forged.code).toBe(1);
    expect(forged.stderr).toMatch(/^error: \[RC5041\]/);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain("--payload is not JSON");
    expect(noSecret.code).toBe(2);
    expect(denied).toMatchObject({ code: 0 });
    expect((await agents.deferrals.get({ deferralId: second.deferralId })).denial).toMatchObject({ reason: "duplicate invoice" });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("[RC5046]");

    // Decided already: the second resume reads the first outcome, the second denial is refused.
    const [again, twice] = await Promise.all([
      cli(["--json", "deferrals", "resume", "--token", first.token, "--payload", '{"approved":false}']),
      cli(["--json", "deferrals", "deny", second.deferralId, "--reason", "again"]),
    ]);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: "duplicate" });
    expect(twice.code).toBe(1);
    expect(JSON.parse(twice.stdout)).toMatchObject({ error: { code: "RC5050" } });
  });
});

describe("durable-agents runs", () => {
  it("starts a run of an agent a module exports and waits; reads state; tails; cancels; AI1010 for an unknown run", async () => {
    // A module of the operator's: plain JS next to the package, as a built app would have it.
    const dir = artifacts;
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${dir}/agents.mjs`, `import { defineAgent } from "./dist/src/index.js";\nexport const weather = defineAgent({ id: "weather", model: "gpt-4.1-mini", system: "x" });\n`);
    const runId = uid("cli-started");
    const question = `${runId}: what is 2+2?`;
    h.model.script(question, [{ toolCalls: [{ name: "add", arguments: { a: 2, b: 2 } }] }, { text: "4" }]);
    const started = await cli(["--json", "runs", "start", `${dir}/agents.mjs`, "--prompt", question, "--run-id", runId, "--wait"]);
    expect(started.code).toBe(0);
    expect(JSON.parse(started.stdout)).toMatchObject({ runId, status: "completed", text: "4" });

    const slow = uid("cli-slow");
    // Held at the model until the cancel aborts the call.
    h.model.script(slow, [{ hold: h.model.hold(), text: "never" }]);
    await agents.start(weatherAgent, { prompt: slow, runId: slow });
    const [state, tail, cancelled, missing, wrongModule] = await Promise.all([
      cli(["runs", "state", runId]),
      cli(["--json", "runs", "tail", runId, "--interval", "100ms"]),
      cli(["runs", "cancel", slow, "--reason", "operator"]),
      cli(["runs", "state", "no-such-run"]),
      cli(["runs", "start", `${dir}/nope.mjs`, "--prompt", "x"]),
    ]);
    expect(state.stdout).toContain("status   completed");
    expect(state.stdout).toContain('assistant: → add({"a":2,"b":2})');
    expect(tail.code).toBe(0);
    const lines = tail.stdout.trim().split("\n").map((l) => JSON.parse(l) as { message?: { role: string }; status?: string });
    expect(lines.filter((l) => l.message).map((l) => l.message!.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(lines.at(-1)).toMatchObject({ status: "completed" });

    expect(cancelled).toMatchObject({ code: 0 });
    await expect(agents.result({ runId: slow })).rejects.toMatchObject({ code: "AI1005" });

    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("[AI1010]");
    expect(wrongModule.code).toBe(2);
  });
});

describe("durable-agents threads", () => {
  it("sends a message and streams the answer; lists threads", async () => {
    const { threadId } = await agents.threads.createThread({ agent: chatAgent, autoStart: false });
    const prompt = uid("tell me");
    // One script per conversation (keyed by its first message): both answers of the thread.
    // The second answer comes out in two pieces, each once the command has printed the one before.
    const second = "Another answer, also written in pieces, each printed as it came.";
    const pieces = [16, 40].map((afterChars) => ({ hold: h.model.hold(), afterChars }));
    h.model.script(prompt, [{ text: "A streamed answer, written in pieces." }, { text: second, holds: pieces }]);
    const sent = await cli(["threads", "send", threadId, prompt]);
    expect(sent.code).toBe(0);
    expect(sent.stdout).toContain("A streamed answer, written in pieces.");
    // With --json, one object per line: the deltas as they came, then the finished message.
    const next = uid("and then");
    let out = "";
    const child = spawn(process.execPath, [bin, "--json", "threads", "send", threadId, next], { env: { ...process.env, ...env }, cwd: root, stdio: ["ignore", "pipe", "inherit"] });
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    const lines = () => out.slice(0, out.lastIndexOf("\n") + 1).split("\n").filter(Boolean).map((l) => JSON.parse(l) as { type: string; text?: string; message?: unknown });
    const printed = () => lines().flatMap((l) => (l.type === "text-delta" ? [l.text] : [])).join("");
    for (const { hold, afterChars } of pieces) {
      await vi.waitFor(() => expect(printed().length).toBeGreaterThanOrEqual(afterChars), { timeout: 30_000, interval: 20 });
      hold.release();
    }
    expect(await exited).toBe(0);
    expect(lines().filter((l) => l.type === "text-delta").length).toBeGreaterThanOrEqual(2);
    expect(second.startsWith(printed())).toBe(true);
    expect(lines().at(-1)).toMatchObject({ type: "message", message: { content: second } });
    // A turn that fails prints the thread's error code and exits 1 (the script has no third answer).
    const [failed, listed] = await Promise.all([cli(["threads", "send", threadId, "one more"]), cli(["--json", "threads", "list"])]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^error: \[AI1003\] The model call failed/m);
    expect(JSON.parse(listed.stdout).threads.map((t: { threadId: string }) => t.threadId)).toContain(threadId);
  });
});

describe("durable-agents threads tail with a tool's progress", () => {
  it("prints the progress a running tool reports on a line of its own, then the answer", async () => {
    const { threadId } = await agents.threads.createThread({ agent: reportAgent, autoStart: false });
    const prompt = uid("write the report");
    h.model.script(prompt, [{ text: "Starting. ", toolCalls: [{ name: "buildReport", arguments: { pages: 3 } }] }, { text: "The report is ready." }]);
    let out = "";
    const child = spawn(process.execPath, [bin, "threads", "send", threadId, prompt], { env: { ...process.env, ...env }, cwd: root, stdio: ["ignore", "pipe", "inherit"] });
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    try {
      // The tool holds until the command has shown its progress: a preview of a call still running.
      await vi.waitFor(() => expect(out).toContain('… buildReport: {"page":1,"of":3,"note":"tab\\there"}\n'), { timeout: 30_000, interval: 20 });
      expect(out).not.toContain("The report is ready.");
    } finally {
      // Also when it failed: a tool left holding would keep the worker from shutting down.
      releaseReport();
    }
    expect(await exited).toBe(0);
    // Its own line: after the text streamed before the call, before the answer that follows it.
    const lines = out.split("\n");
    expect(lines).toContain('… buildReport: {"page":1,"of":3,"note":"tab\\there"}');
    expect(out.indexOf("… buildReport")).toBeLessThan(out.indexOf("The report is ready."));
  });
});

describe("durable-agents with --codec-endpoint", () => {
  it("reads an encrypted run through a codec server it holds no key for, and prints the codec's refusal without one", async () => {
    const codec = aesGcmCodec({ keys: { k1: randomBytes(32) }, current: "k1" });
    const operator = "Bearer cli-operator";
    const served = await encryptedWorker(h, [payoutAgent], codec);
    const server = await new Promise<Server>((resolve) => {
      const s = serve({ fetch: createCodecServer({ codecs: [codec], authorize: (request) => request.headers.get("authorization") === operator }), port: 0, hostname: "127.0.0.1" }, () =>
        resolve(s as Server),
      );
    });
    try {
      const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const runId = uid("cli-sealed");
      h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 77 } }] }]);
      const ack = await served.agents.run(payoutAgent, { prompt: runId, runId });
      if (ack.status !== "deferred") throw new Error(`expected a deferral, got ${ack.status}`);
      const queue = { DURABLE_AGENTS_TASK_QUEUE: served.taskQueue };

      const [shown, fromEnv, refused] = await Promise.all([
        cli(["deferrals", "show", ack.deferralId, "--codec-endpoint", endpoint, "--codec-auth", operator], queue),
        // The same from the environment, as the Temporal CLI takes it.
        cli(["deferrals", "show", ack.deferralId], { ...queue, TEMPORAL_CODEC_ENDPOINT: endpoint, TEMPORAL_CODEC_AUTH: operator }),
        cli(["deferrals", "show", ack.deferralId, "--codec-endpoint", endpoint, "--codec-auth", "Bearer someone-else"], queue),
      ]);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain('meta       {"requires":["payouts:approve"],"amount":77}');
      expect(fromEnv.stdout).toContain('"amount":77');

      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("[AI1045]");
      expect(refused.stdout + refused.stderr).not.toContain('"amount":77');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

/** A request with the headers a browser on another site would send (fetch may not set Host). */
function rawRequest(url: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? "GET", headers: options.headers ?? {} }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("durable-agents dev", () => {
  it("serves the console on loopback, by loopback names only: a rebound name, a foreign origin and another interface get nothing", async () => {
    // Ports picked by the command itself, which prints them: none is picked here and taken by someone else before the server binds it.
    const child = spawn(process.execPath, [bin, "--json", "dev", "--port", "0", "--ui-port", "0", "--console-port", "0", "--task-queue", "dev-console-q"], {
      env: { ...process.env, TEMPORAL_ADDRESS: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const ready = await new Promise<{ console: string; taskQueue: string }>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (c: Buffer) => {
          out += c.toString();
          if (out.includes("\n")) resolve(JSON.parse(out.split("\n")[0]!));
        });
        child.once("exit", (code) => reject(new Error(`dev exited with ${code}`)));
      });
      expect(ready.console).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/console$/);
      expect(ready.taskQueue).toBe("dev-console-q");
      const page = await fetch(ready.console);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("<h1");
      // A page on a foreign site that rebound its name to this machine: refused before anything is read.
      const rebound = await rawRequest(ready.console, { headers: { host: "attacker.example" } });
      expect(rebound.status).toBe(403);
      expect(rebound.body).toContain("AI1047");
      // A foreign page posting to it (a cancel): refused, by its Origin.
      const posted = await rawRequest(ready.console.replace("/console", "/console/runs/x/cancel"), { method: "POST", headers: { origin: "https://attacker.example", "content-type": "application/x-www-form-urlencoded" } });
      expect(posted.status).toBe(403);
      // Another process on the network: the port is not open on any other interface.
      const other = Object.values(networkInterfaces()).flat().find((a) => a && a.family === "IPv4" && !a.internal);
      if (other) await expect(fetch(ready.console.replace("127.0.0.1", other.address))).rejects.toThrow();
    } finally {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGINT");
      await exited;
    }
  }, 60_000);

  it("starts a dev server with the UI on free ports it picks (--port 0 --ui-port 0), prints where, and stops on Ctrl-C", async () => {
    const child = spawn(process.execPath, [bin, "--json", "dev", "--port", "0", "--ui-port", "0", "--no-console"], { env: { ...process.env, TEMPORAL_ADDRESS: "" }, stdio: ["ignore", "pipe", "pipe"] });
    const ready = await new Promise<{ address: string; ui: string }>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (c: Buffer) => {
        out += c.toString();
        if (out.includes("\n")) resolve(JSON.parse(out.split("\n")[0]!));
      });
      child.once("exit", (code) => reject(new Error(`dev exited with ${code}`)));
    });
    const [grpcPort, uiPort] = [ready.address, ready.ui].map((at) => Number(at.slice(at.lastIndexOf(":") + 1)));
    expect(grpcPort).toBeGreaterThan(0);
    expect(uiPort).toBeGreaterThan(0);
    expect(ready.ui).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The server answers where it says: a client connects, and the UI answers over HTTP.
    const connection = await Connection.connect({ address: ready.address });
    try {
      expect((await connection.workflowService.getSystemInfo({})).serverVersion).toBeTruthy();
    } finally {
      await connection.close();
    }
    await vi.waitFor(async () => expect((await fetch(ready.ui)).status).toBe(200), { timeout: 20_000, interval: 250 });
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGINT");
    await exited;
    // The server went with it.
    await expect(fetch(ready.ui)).rejects.toThrow();
  }, 60_000);
});
