/**
 * DNS-rebinding protection of MCP over HTTP, on `createMcpServer(...).fetch` and on
 * `durable-agents mcp --port`: a request whose `Host` or `Origin` names a foreign site (what
 * a rebound web page sends) is refused with 403 and AI1047 before anything runs, so it starts
 * no run and reads none; loopback hosts, requests without an `Origin` and the allow-lists
 * are served. Requests are raw HTTP, since an MCP client (or a browser) never lets a test
 * choose its `Host`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { request as httpRequest, type Server as NodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AgentClient, type AuthorizeRequest } from "../src/index.js";
import { createMcpServer, type McpServerOptions } from "../src/mcp.js";
import { root } from "./cli-support.js";
import { payoutAgent } from "./fixtures/approvals.js";
import { startHarness, uid, type Harness } from "./harness.js";

let h: Harness;
let taskQueue: string;
/** Every operation the MCP layer asked the client's hook about: what it tried to start or read. */
const asked: AuthorizeRequest[] = [];
let agents: AgentClient;
const servers: NodeServer[] = [];
const children: ChildProcess[] = [];
let doneRunId: string;
const ANSWER = `the answer ${uid("marker")}`;

beforeAll(async () => {
  h = await startHarness();
  const served = await h.worker([payoutAgent]);
  taskQueue = served.taskQueue;
  agents = new AgentClient({ connection: h.connection, namespace: h.namespace, taskQueue, authorize: (r) => (asked.push(r), true) });
  // A finished run whose answer a foreign page must not read.
  doneRunId = uid("mcp-origin-done");
  h.model.script(doneRunId, [{ text: ANSWER }]);
  expect(await served.agents.run(payoutAgent, { prompt: doneRunId, runId: doneRunId })).toMatchObject({ status: "completed" });
});

afterAll(async () => {
  for (const child of children) child.kill();
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
  await h?.close();
});

const options = (extra: Partial<McpServerOptions> = {}): McpServerOptions => ({ agents, tools: [{ agent: payoutAgent, name: "payouts", description: "Pays out money" }], ...extra });

async function listen(fetch: (request: Request) => Promise<Response>): Promise<number> {
  const server = await new Promise<NodeServer>((resolve) => {
    const s = serve({ fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s as NodeServer));
  });
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

interface Answer {
  status: number;
  text: string;
  /** The JSON-RPC message: the body, or the last event of a Server-Sent Events answer. */
  rpc: { result?: Record<string, unknown>; error?: { code: number; message: string; data?: { code?: string } } } | undefined;
}

/** One raw HTTP request to `/mcp` on 127.0.0.1:`port`, with the `Host` and `Origin` given. */
function send(port: number, headers: { host: string; origin?: string }, body: unknown, method = "POST"): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? "" : JSON.stringify(body);
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        path: "/mcp",
        method,
        headers: {
          ...headers,
          accept: "application/json, text/event-stream",
          ...(payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => {
          const data = text.split("\n").filter((l) => l.startsWith("data: ")).at(-1)?.slice("data: ".length);
          let rpc: Answer["rpc"];
          try {
            rpc = JSON.parse(data ?? text) as Answer["rpc"];
          } catch {
            rpc = undefined;
          }
          resolve({ status: res.statusCode ?? 0, text, rpc });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

let rpcId = 0;
const startCall = (prompt: string) => ({ jsonrpc: "2.0", id: ++rpcId, method: "tools/call", params: { name: "payouts", arguments: { prompt } } });
const readRun = (runId: string) => ({ jsonrpc: "2.0", id: ++rpcId, method: "resources/read", params: { uri: `run://${runId}` } });
const getRun = (runId: string) => ({ jsonrpc: "2.0", id: ++rpcId, method: "tools/call", params: { name: "get_run", arguments: { runId } } });

function expectRefused(answer: Answer, header: "Host" | "Origin") {
  expect(answer.status).toBe(403);
  expect(answer.rpc?.error).toMatchObject({ code: -32000, data: { code: "AI1047" } });
  expect(answer.rpc?.error?.message).toMatch(new RegExp(`^\\[AI1047\\] ${header} `));
  expect(answer.text).not.toContain(ANSWER);
  expect(answer.text).not.toContain(doneRunId);
}

/** The finished run's state, as `resources/read` answers it. */
function expectRead(answer: Answer) {
  expect(answer.status).toBe(200);
  const contents = (answer.rpc?.result as { contents?: Array<{ text: string }> } | undefined)?.contents;
  expect(JSON.parse(contents?.[0]?.text ?? "null")).toMatchObject({ runId: doneRunId, status: "completed" });
}

/** The run ids on this file's task queue, once visibility lists `expected` (it trails writes by a moment). */
async function runsOnQueue(expected: string[]): Promise<string[]> {
  let ids: string[] = [];
  await vi.waitFor(
    async () => {
      ids = [];
      for await (const wf of agents.client.workflow.list({ query: `TaskQueue = "${taskQueue}"` })) ids.push(wf.workflowId);
      expect(ids).toEqual(expect.arrayContaining(expected));
    },
    { timeout: 20_000, interval: 250 },
  );
  return ids.sort();
}

describe("createMcpServer(...).fetch", () => {
  it("refuses a foreign Host or Origin with 403 and AI1047 before anything runs: no run started, none read", async () => {
    const port = await listen(createMcpServer(options()).fetch);
    const prompt = uid("rebound");
    h.model.script(prompt, [{ text: "started by a rebound page" }]);
    asked.length = 0;
    const foreignHost = { host: `evil.example:${port}`, origin: `http://evil.example:${port}` };
    const foreignOrigin = { host: `127.0.0.1:${port}`, origin: "https://evil.example" };
    for (const headers of [foreignHost, { host: `evil.example:${port}` }]) {
      for (const body of [startCall(prompt), readRun(doneRunId), getRun(doneRunId)]) expectRefused(await send(port, headers, body), "Host");
    }
    for (const headers of [foreignOrigin, { host: `localhost:${port}`, origin: "null" }, { host: `localhost:${port}`, origin: "http://localhost.evil.example" }]) {
      for (const body of [startCall(prompt), readRun(doneRunId), getRun(doneRunId)]) expectRefused(await send(port, headers, body), "Origin");
    }
    // Any method: the refusal comes before the 405 of a GET.
    expectRefused(await send(port, foreignHost, undefined, "GET"), "Host");
    // The MCP layer never asked the client to start or read anything, and the model was never called.
    expect(asked).toEqual([]);
    expect(h.model.requests.filter((r) => r.conversation === prompt)).toEqual([]);

    // The same call from a local client starts the run: the only one the refused calls could have started.
    const allowed = await send(port, { host: `127.0.0.1:${port}` }, startCall(prompt));
    expect(allowed.status).toBe(200);
    expect(allowed.rpc?.result).toMatchObject({ structuredContent: { result: { status: "completed", text: "started by a rebound page" } } });
    const started = asked.filter((r) => r.operation === "run.start").map((r) => r.runId);
    expect(started).toHaveLength(1);
    expect(await runsOnQueue([doneRunId, started[0]!])).toEqual([doneRunId, started[0]!].sort());
  });

  it("serves loopback hosts on any port, requests without an Origin, and origins on an allowed host", async () => {
    const port = await listen(createMcpServer(options()).fetch);
    for (const headers of [{ host: `127.0.0.1:${port}` }, { host: `localhost:${port}`, origin: "http://localhost:5173" }, { host: `[::1]:${port}`, origin: `http://[::1]:${port}` }, { host: "localhost" }]) {
      const read = await send(port, headers, readRun(doneRunId));
      expect({ headers, status: read.status }).toEqual({ headers, status: 200 });
      expectRead(read);
    }
    const got = await send(port, { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` }, getRun(doneRunId));
    expect(got.rpc?.result).toMatchObject({ structuredContent: { runId: doneRunId, status: "completed", text: ANSWER } });
  });

  it("serves the hosts and origins of allowedHosts / allowedOrigins, and refuses entries that are not hosts or origins (AI1001)", async () => {
    const port = await listen(createMcpServer(options({ allowedHosts: ["MCP.example.test"], allowedOrigins: ["https://app.example.test"] })).fetch);
    const defaults = await listen(createMcpServer(options()).fetch);
    const named = { host: `mcp.example.test:${port}`, origin: "https://mcp.example.test" };
    const app = { host: `127.0.0.1:${port}`, origin: "https://app.example.test" };
    for (const headers of [named, app, { host: `mcp.example.test:${port}`, origin: "https://app.example.test" }]) {
      const read = await send(port, headers, readRun(doneRunId));
      expect({ headers, status: read.status }).toEqual({ headers, status: 200 });
      expectRead(read);
    }
    // Not served without the lists, nor an origin the lists do not name.
    expectRefused(await send(defaults, { ...named, host: `mcp.example.test:${defaults}` }, readRun(doneRunId)), "Host");
    expectRefused(await send(defaults, { ...app, host: `127.0.0.1:${defaults}` }, readRun(doneRunId)), "Origin");
    expectRefused(await send(port, { host: `127.0.0.1:${port}`, origin: "https://other.example.test" }, readRun(doneRunId)), "Origin");
    expectRefused(await send(port, { host: `other.example.test:${port}` }, readRun(doneRunId)), "Host");

    for (const bad of [{ allowedHosts: ["https://mcp.example.test"] }, { allowedHosts: ["mcp.example.test:8443"] }, { allowedHosts: ["*"] }, { allowedOrigins: ["*"] }, { allowedOrigins: ["https://app.example.test/path"] }]) {
      expect(() => createMcpServer(options(bad))).toThrow(expect.objectContaining({ code: "AI1001" }));
    }
  });
});

describe("durable-agents mcp --port", () => {
  it("refuses a foreign Host or Origin with 403 and AI1047, starting nothing, and serves loopback and --allowed-host / --allowed-origin", async () => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "src/cli/main.ts", "mcp", "--agents", "test/fixtures/approvals.ts", "--port", "0", "--allowed-host", "mcp.example.test", "--allowed-origin", "https://app.example.test"],
      { cwd: root, env: { ...process.env, TEMPORAL_ADDRESS: h.address, TEMPORAL_NAMESPACE: h.namespace, DURABLE_AGENTS_TASK_QUEUE: taskQueue }, stdio: ["ignore", "ignore", "pipe"] },
    );
    children.push(child);
    const port = await new Promise<number>((resolve, reject) => {
      let err = "";
      child.stderr!.on("data", (chunk: Buffer) => {
        err += chunk.toString();
        const at = /MCP over Streamable HTTP at http:\/\/[^:]+:(\d+)\/mcp/.exec(err);
        if (at) resolve(Number(at[1]));
      });
      child.once("exit", (code) => reject(new Error(`mcp exited with ${code}: ${err}`)));
    });

    const prompt = uid("rebound-cli");
    h.model.script(prompt, [{ text: "started over the command" }]);
    for (const body of [startCall(prompt), readRun(doneRunId), getRun(doneRunId)]) {
      expectRefused(await send(port, { host: `evil.example:${port}`, origin: `http://evil.example:${port}` }, body), "Host");
      expectRefused(await send(port, { host: `127.0.0.1:${port}`, origin: "https://evil.example" }, body), "Origin");
    }
    expect(h.model.requests.filter((r) => r.conversation === prompt)).toEqual([]);

    for (const headers of [{ host: `127.0.0.1:${port}` }, { host: `mcp.example.test:${port}`, origin: "https://mcp.example.test" }, { host: `localhost:${port}`, origin: "https://app.example.test" }]) {
      const read = await send(port, headers, readRun(doneRunId));
      expect({ headers, status: read.status }).toEqual({ headers, status: 200 });
      expectRead(read);
    }
    const allowed = await send(port, { host: `localhost:${port}` }, startCall(prompt));
    expect(allowed.rpc?.result).toMatchObject({ structuredContent: { result: { status: "completed", text: "started over the command" } } });
    expect(h.model.requests.filter((r) => r.conversation === prompt)).toHaveLength(1);
  });
});
