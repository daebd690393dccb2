/**
 * `durable-agents mcp --agents <module>` over stdio, spawned as a desktop client spawns it
 * (through the MCP SDK's real stdio `Client`), against the suite's dev server and an
 * in-process worker.
 */
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { spawn, type ChildProcess } from "node:child_process";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentClient } from "../src/index.js";
import { DEFERRED_SCHEMA } from "../src/mcp.js";
import { linkFor, payoutAgent } from "./fixtures/approvals.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";

const root = fileURLToPath(new URL("..", import.meta.url));

let h: Harness;
let agents: AgentClient;
let client: Client;
let env: Record<string, string>;
const children: ChildProcess[] = [];

beforeAll(async () => {
  h = await startHarness();
  const served = await h.worker([payoutAgent], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } });
  agents = served.agents;
  env = { ...(process.env as Record<string, string>), TEMPORAL_ADDRESS: h.address, TEMPORAL_NAMESPACE: h.namespace, DURABLE_AGENTS_TASK_QUEUE: served.taskQueue };
  // TypeScript sources through tsx: the command imports the module with Node, as `runs start` does.
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", "src/cli/main.ts", "mcp", "--agents", "test/fixtures/approvals.ts", "--as", "desk-user"],
    cwd: root,
    env,
    stderr: "inherit",
  });
  client = new Client({ name: "desktop", version: "1.0.0" });
  await client.connect(transport);
}, 120_000);

afterAll(async () => {
  await client?.close();
  for (const child of children) child.kill();
  await h?.close();
});

describe("durable-agents mcp (stdio)", () => {
  it("serves the module's agents as tools with the enveloped union on the negotiated 2025 revision", async () => {
    const { tools } = await client.listTools();
    const payouts = tools.find((t) => t.name === "payouts")!;
    expect(payouts.outputSchema).toMatchObject({ properties: { result: { oneOf: [expect.anything(), DEFERRED_SCHEMA] } } });
    expect(tools.map((t) => t.name)).toContain("get_run");
    expect(client.getServerCapabilities()?.resources).toEqual({ subscribe: true });
    const refused = await client.subscribeResource({ uri: "run://no-such-run" }).catch((err: unknown) => err);
    expect(refused).toMatchObject({ data: { code: "AI1010" } });
  });

  it("defers over stdio, notifies the run's resource when an approval finishes it, and get_run returns the outcome", async () => {
    const prompt = uid("stdio");
    h.model.script(prompt, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 3 } }] }, { toolCalls: [{ name: "sendPayout", arguments: { amount: 3 } }] }, { text: "Paid 3." }]);
    const result = await client.callTool({ name: "payouts", arguments: { prompt } });
    expect(result.isError).toBe(false);
    const ack = (result.structuredContent as { result: { runId: string; status: string } }).result;
    expect(ack.status).toBe("deferred");
    const link = linkFor(ack.runId);
    expect(JSON.stringify(result)).not.toContain(link.token);
    const state = await agents.state({ runId: ack.runId });
    expect(state.principal).toEqual({ id: "desk-user" });

    // Subscribed while it waits: one notification when the approval has let it finish.
    const updated: string[] = [];
    const notified = new Promise<void>((resolve) =>
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
        updated.push(n.params.uri);
        resolve();
      }),
    );
    await client.subscribeResource({ uri: `run://${ack.runId}` });
    expect(updated).toEqual([]);
    await agents.resume({ token: link.token, payload: { approved: true } });
    await notified;
    expect(updated).toEqual([`run://${ack.runId}`]);
    const resource = await client.readResource({ uri: `run://${ack.runId}` });
    expect(JSON.parse((resource.contents[0] as { text: string }).text)).toMatchObject({ runId: ack.runId, status: "completed" });
    const outcome = await client.callTool({ name: "get_run", arguments: { runId: ack.runId } });
    expect(outcome.structuredContent).toEqual({ runId: ack.runId, status: "completed", text: "Paid 3." });
  });

  it("serves Streamable HTTP with --port (0: a free one, printed)", async () => {
    // The command picks the port and prints it: none is picked here and taken by someone else before the command binds it.
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", "mcp", "--agents", "test/fixtures/approvals.ts", "--port", "0"], { cwd: root, env, stdio: ["ignore", "ignore", "pipe"] });
    children.push(child);
    const url = await new Promise<string>((resolve, reject) => {
      let err = "";
      child.stderr!.on("data", (chunk: Buffer) => {
        err += chunk.toString();
        const at = / at (http:\/\/127\.0\.0\.1:\d+\/mcp) /.exec(err);
        if (at) resolve(at[1]!);
      });
      child.on("exit", (code) => reject(new Error(`the command exited with ${code}`)));
    });
    const http = new Client({ name: "web", version: "1.0.0" });
    await http.connect(new StreamableHTTPClientTransport(new URL(url)));
    const prompt = uid("http-cli");
    h.model.script(prompt, [{ text: "hello" }]);
    const result = await http.callTool({ name: "payouts", arguments: { prompt } });
    expect(result.structuredContent).toEqual({ result: { status: "completed", text: "hello" } });
    await http.close();
  });
});
