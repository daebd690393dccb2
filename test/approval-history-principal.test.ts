/**
 * The audit trail by principal (`agents.approvals.history({ decidedBy | actingFor, since })`):
 * two runs and a thread (which rolls over after its request) decided by two approvers, acting
 * for two customers. Each filter returns exactly the requests of that principal, each as
 * `history({ approvalId })` reads it, oldest first, a page of runs and threads at a time; a
 * caller the hook refuses one run sees the others, with no error; reading changes no run's
 * history; malformed, oversized and forged input is refused with AI1001 (AI1040 over HTTP and
 * MCP). Over HTTP, the CLI and MCP, the same answer.
 */
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { aesGcmCodec, type AgentClient, type ApprovalHistory, type PrincipalApprovalHistory, type PrincipalApprovalHistoryOptions } from "../src/index.js";
import { createMcpServer } from "../src/mcp.js";
import { cliEnv, runCli } from "./cli-support.js";
import { gatedFixtures } from "./gated-fixtures.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";
import { startHttp } from "./http-support.js";

let h: Harness;
let agents: AgentClient;
let env: Record<string, string>;
/** The run "auditor-b" may not read. */
let hidden = "";

/** A payout agent whose sendPayout waits for a person with `payouts:approve`. */
const { payouts: agent } = gatedFixtures("audited-by-principal");

const since = new Date();
/** The three requests, as made below. */
const made: { runA: string; runB: string; thread: string; a: string; b: string; t: string } = { runA: "", runB: "", thread: "", a: "", b: "", t: "" };

beforeAll(async () => {
  h = await startHarness();
  const served = await h.worker([agent], {
    deferral: { secret: SECRET },
    client: {
      deferral: { secret: SECRET },
      threads: { agent },
      authorize: (req) => req.principal?.id !== "mallory" && !(req.principal?.id === "auditor-b" && req.operation === "run.state" && req.runId === hidden),
    },
  });
  agents = served.agents;
  env = cliEnv(h, served.taskQueue);

  // Run A: for customer-42, decided by fiona. Run B: for customer-7, decided by fiona.
  for (const [key, customer] of [["A", "customer-42"], ["B", "customer-7"]] as const) {
    const runId = uid(`by-principal-${key}`);
    h.model.script(runId, [{ toolCalls: [{ name: "sendPayout", arguments: { amount: 10, to: key } }] }, { text: "done" }]);
    const ack = await agents.run(agent, { prompt: runId, runId, principal: { id: customer } });
    const approvalId = (ack as { deferralId: string }).deferralId;
    const [call] = (await agents.approvals.get({ approvalId })).calls;
    expect(await agents.approvals.decide({ approvalId, principal: { id: "fiona" }, decisions: { [call!.toolCallId]: { approved: true } } })).toMatchObject({ status: "resumed" });
    if (key === "A") Object.assign(made, { runA: runId, a: approvalId });
    else Object.assign(made, { runB: runId, b: approvalId });
  }
  hidden = made.runB;

  // The thread: for customer-42, decided by gus; it then rolls over (continue-as-new) with the request carried.
  const threadId = uid("by-principal-t");
  h.model.script(threadId, [{ toolCalls: [{ name: "sendPayout", arguments: { amount: 5, to: "T" } }] }, { text: "done" }, ...Array.from({ length: 20 }, (_, i) => ({ text: `ok ${i + 1}` }))]);
  await agents.threads.createThread({ threadId, prompt: threadId, principal: { id: "customer-42" }, maxHistoryEvents: 40 });
  const waiting = await vi.waitFor(
    async () => {
      const [request] = (await agents.threads.state({ threadId })).approvals;
      expect(request).toBeDefined();
      return request!;
    },
    { timeout: 20_000, interval: 50 },
  );
  await agents.threads.decide({ threadId, approvalId: waiting.approvalId, decisions: { [waiting.calls[0]!.toolCallId]: { approved: true } }, principal: { id: "gus" } });
  expect(await agents.threads.settled({ threadId })).toMatchObject({ status: "completed" });
  for (let turn = 1; (await agents.threads.settled({ threadId })).generation === 0; turn++) {
    expect(turn).toBeLessThan(20);
    await agents.threads.sendMessage({ threadId, prompt: `${threadId} more ${turn}` });
    expect(await agents.threads.settled({ threadId })).toMatchObject({ status: "completed" });
  }
  Object.assign(made, { thread: threadId, t: waiting.approvalId });
}, 120_000);
afterAll(() => h?.close());

const ids = (page: PrincipalApprovalHistory) => page.requests.map((r) => r.approvalId);
/** Every page of a listing, `limit` runs and threads at a time. */
async function allPages(options: PrincipalApprovalHistoryOptions, limit: number): Promise<{ requests: ApprovalHistory[]; pages: number }> {
  const requests: ApprovalHistory[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page: PrincipalApprovalHistory = await agents.approvals.history({ ...options, limit, ...(cursor ? { cursor } : {}) });
    requests.push(...page.requests);
    cursor = page.cursor;
    pages++;
  } while (cursor);
  return { requests, pages };
}

describe("approvals.history({ decidedBy | actingFor, since })", () => {
  it("returns exactly each principal's requests, as history({ approvalId }) reads them, oldest first; paged; after continue-as-new", async () => {
    // Visibility trails writes by a moment: wait until it lists all three.
    const fiona = await vi.waitFor(
      async () => {
        const page = await agents.approvals.history({ decidedBy: "fiona", since });
        expect(ids(page)).toEqual([made.a, made.b]);
        return page;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(fiona.cursor).toBeUndefined();
    expect(fiona.requests[0]).toEqual(await agents.approvals.history({ approvalId: made.a }));
    expect(fiona.requests[1]).toEqual(await agents.approvals.history({ approvalId: made.b }));
    expect(fiona.requests[0]!.entries.find((e) => e.type === "decided")).toMatchObject({ by: { id: "fiona" } });

    const gus = await agents.approvals.history({ decidedBy: "gus", since });
    expect(ids(gus)).toEqual([made.t]);
    // The thread continued as new after its request: the latest run carries it, trail included.
    expect(gus.requests[0]).toMatchObject({ runId: made.thread, status: "resumed" });
    expect(gus.requests[0]).toEqual(await agents.approvals.history({ approvalId: made.t }));

    expect(ids(await agents.approvals.history({ actingFor: "customer-42", since }))).toEqual([made.a, made.t]);
    expect(ids(await agents.approvals.history({ actingFor: "customer-7", since }))).toEqual([made.b]);
    expect(ids(await agents.approvals.history({ decidedBy: "fiona", actingFor: "customer-42", since }))).toEqual([made.a]);
    expect(ids(await agents.approvals.history({ decidedBy: "nobody", since }))).toEqual([]);
    expect(ids(await agents.approvals.history({ actingFor: "customer-42", since: new Date(Date.now() + 60_000) }))).toEqual([]);

    // One run or thread a page: every request comes once, on one of the pages.
    const paged = await allPages({ actingFor: "customer-42", since }, 1);
    expect(paged.pages).toBeGreaterThanOrEqual(2);
    expect(paged.requests.map((r) => r.approvalId).sort()).toEqual([made.a, made.t].sort());
  });

  it("leaves out, without an error, the runs the hook refuses the caller (run.state); a refused caller gets none", async () => {
    await vi.waitFor(async () => expect(ids(await agents.approvals.history({ decidedBy: "fiona", since }))).toEqual([made.a, made.b]), { timeout: 20_000, interval: 100 });
    expect(ids(await agents.approvals.history({ decidedBy: "fiona", since, principal: { id: "auditor-b" } }))).toEqual([made.a]);
    expect(ids(await agents.approvals.history({ actingFor: "customer-7", since, principal: { id: "auditor-b" } }))).toEqual([]);
    expect(ids(await agents.approvals.history({ decidedBy: "fiona", since, principal: { id: "mallory" } }))).toEqual([]);
  });

  it("changes no run's history: reading bills no action of theirs", async () => {
    const events = async () =>
      Promise.all([made.runA, made.runB, made.thread].map(async (id) => (await agents.client.workflow.getHandle(id).fetchHistory()).events?.length));
    const before = await events();
    await agents.approvals.history({ decidedBy: "fiona", since });
    await agents.approvals.history({ actingFor: "customer-42", since });
    expect(await events()).toEqual(before);
  });

  it("refuses malformed, oversized and forged input with AI1001, reading nothing", async () => {
    const refused = (options: unknown) => expect(agents.approvals.history(options as never)).rejects.toMatchObject({ code: "AI1001" });
    await refused({ decidedBy: "fiona" });
    await refused({ decidedBy: "fiona", since: "not a date" });
    await refused({ decidedBy: "fiona", since: "9".repeat(5000) });
    await refused({ decidedBy: "", since });
    await refused({ decidedBy: "f".repeat(1001), since });
    await refused({ actingFor: 42, since });
    await refused({ decidedBy: "fiona", runId: made.runA, since });
    await refused({ decidedBy: "fiona", approvalId: made.a, since });
    await refused({ decidedBy: "fiona", since, limit: 0 });
    await refused({ decidedBy: "fiona", since, limit: 101 });
    await refused({ decidedBy: "fiona", since, cursor: "not base64 json" });
    await refused({ decidedBy: "fiona", since, cursor: "x".repeat(5000) });
    await refused({ decidedBy: "fiona", since, cursor: Buffer.from(JSON.stringify({ t: "AAAA", s: "forged" })).toString("base64url") });
    // A cursor handed out for other filters does not continue these.
    const page = await agents.approvals.history({ actingFor: "customer-42", since, limit: 1 });
    expect(page.cursor).toBeDefined();
    await refused({ decidedBy: "fiona", since, cursor: page.cursor });
    await refused({ actingFor: "customer-42", since: new Date(since.getTime() - 1), cursor: page.cursor });
    // Its Temporal token changed, its seal kept: refused before Temporal is asked.
    const { t, s } = JSON.parse(Buffer.from(page.cursor!, "base64url").toString()) as { t: string; s: string };
    const forged = Buffer.from(JSON.stringify({ t: Buffer.from('{"RunID":"x"}').toString("base64url"), s })).toString("base64url");
    expect(t).not.toBe(JSON.parse(Buffer.from(forged, "base64url").toString()).t);
    await refused({ actingFor: "customer-42", since, cursor: forged });
  });
});

describe("under a codec", () => {
  it("reads the encrypted records and memo rows decoded by the client's codec: a run for someone else is skipped unread, the other found", async () => {
    const dataConverter = { payloadCodecs: [aesGcmCodec({ keys: { k: Buffer.alloc(32, 9) }, current: "k" })] };
    const readRuns: string[] = [];
    const authorize = (req: { operation: string; runId?: string }) => (req.operation === "run.state" && readRuns.push(req.runId!), true);
    const { agents: sealed } = await h.worker([agent], { deferral: { secret: SECRET }, worker: { dataConverter }, client: { deferral: { secret: SECRET }, dataConverter, authorize } });
    const approvals: string[] = [];
    const runIds: string[] = [];
    for (const customer of ["customer-sealed-1", "customer-sealed-2"]) {
      const runId = uid("by-principal-codec");
      h.model.script(runId, [{ toolCalls: [{ name: "sendPayout", arguments: { amount: 1, to: customer } }] }, { text: "done" }]);
      const ack = await sealed.run(agent, { prompt: runId, runId, principal: { id: customer } });
      const approvalId = (ack as { deferralId: string }).deferralId;
      const [call] = (await sealed.approvals.get({ approvalId })).calls;
      await sealed.approvals.decide({ approvalId, principal: { id: "hana" }, decisions: { [call!.toolCallId]: { approved: false, reason: "no" } } });
      approvals.push(approvalId);
      runIds.push(runId);
    }
    await vi.waitFor(async () => expect(ids(await sealed.approvals.history({ decidedBy: "hana", since }))).toEqual(approvals), { timeout: 20_000, interval: 100 });
    readRuns.length = 0;
    const page = await sealed.approvals.history({ actingFor: "customer-sealed-2", since });
    expect(ids(page)).toEqual([approvals[1]]);
    // The other customer's run was told apart by its (decrypted) memo: never authorized, never queried.
    expect(readRuns).toEqual([runIds[1]]);
    expect(page.requests[0]!.entries).toContainEqual(expect.objectContaining({ type: "decided", decision: "rejected", by: { id: "hana" }, reason: "no" }));
  });
});

describe("over HTTP, the CLI and MCP", () => {
  it("GET /approvals/history?decidedBy=…&since=… answers as the SDK, a refused run left out; 400 for missing since, mixed filters, a bad cursor", async () => {
    await vi.waitFor(async () => expect(ids(await agents.approvals.history({ decidedBy: "fiona", since }))).toEqual([made.a, made.b]), { timeout: 20_000, interval: 100 });
    const http = await startHttp({ agents, authenticate: (request) => ({ id: request.headers.get("x-user") ?? "anonymous" }) });
    try {
      const q = (query: string) => `/approvals/history?${query}`;
      const at = encodeURIComponent(since.toISOString());
      const fiona = await http.call("GET", q(`decidedBy=fiona&since=${at}`), { user: "auditor" });
      expect(fiona.status).toBe(200);
      expect(fiona.body).toEqual(JSON.parse(JSON.stringify(await agents.approvals.history({ decidedBy: "fiona", since }))));
      expect((await http.call("GET", q(`decidedBy=fiona&since=${at}`), { user: "auditor-b" })).body.requests.map((r: ApprovalHistory) => r.approvalId)).toEqual([made.a]);
      // A caller the hook refuses every run: an empty page, not an error that says what exists.
      expect(await http.call("GET", q(`decidedBy=fiona&since=${at}`), { user: "mallory" })).toMatchObject({ status: 200, body: { requests: [] } });
      const first = await http.call("GET", q(`actingFor=customer-42&since=${at}&limit=1`), { user: "auditor" });
      expect(first.body.cursor).toEqual(expect.any(String));
      expect((await http.call("GET", q(`actingFor=customer-42&since=${at}&limit=1&cursor=${first.body.cursor}`), { user: "auditor" })).status).toBe(200);
      expect(await http.call("GET", q("decidedBy=fiona"), { user: "auditor" })).toMatchObject({ status: 400, body: { error: { code: "AI1040" } } });
      expect(await http.call("GET", q(`decidedBy=fiona&runId=${made.runA}&since=${at}`), { user: "auditor" })).toMatchObject({ status: 400, body: { error: { code: "AI1040" } } });
      expect(await http.call("GET", q(`decidedBy=${"f".repeat(1001)}&since=${at}`), { user: "auditor" })).toMatchObject({ status: 400, body: { error: { code: "AI1040" } } });
      expect(await http.call("GET", q(`decidedBy=fiona&since=${at}&cursor=${first.body.cursor}`), { user: "auditor" })).toMatchObject({ status: 400, body: { error: { code: "AI1001" } } });
    } finally {
      await http.close();
    }
  });

  it("durable-agents approvals history --decided-by … --since …, and --acting-for; --json as the SDK", async () => {
    await vi.waitFor(async () => expect(ids(await agents.approvals.history({ decidedBy: "gus", since }))).toEqual([made.t]), { timeout: 20_000, interval: 100 });
    const at = since.toISOString();
    const [text, json, forCustomer, noSince] = await Promise.all([
      runCli(["approvals", "history", "--decided-by", "gus", "--since", at], env),
      runCli(["--json", "approvals", "history", "--decided-by", "fiona", "--since", at], env),
      runCli(["--json", "approvals", "history", "--acting-for", "customer-7", "--since", at], env),
      runCli(["approvals", "history", "--decided-by", "gus"], env),
    ]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`approval   ${made.t} (resumed) in ${made.thread}\n`);
    expect(text.stdout).toMatch(/ approved {3}\S+ sendPayout by gus\n/);
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(JSON.stringify(await agents.approvals.history({ decidedBy: "fiona", since }))));
    expect(ids(JSON.parse(forCustomer.stdout))).toEqual([made.b]);
    expect(noSince.code).not.toBe(0);
    expect(noSince.stderr).toContain("AI1001");
    // A page over the limit, or a page flag without a principal: usage mistakes, nothing read.
    const [tooMany, cursorAlone] = await Promise.all([
      runCli(["approvals", "history", "--decided-by", "gus", "--since", at, "--limit", "101"], env),
      runCli(["approvals", "history", "--run", made.runA, "--cursor", "abc"], env),
    ]);
    expect(tooMany.code).toBe(2);
    expect(cursorAlone.code).not.toBe(0);
    expect(cursorAlone.stderr).toContain("AI1001");
  });

  it("history({ threadId }) reads a thread's requests as history({ runId }) with its id does, over the SDK, HTTP (?threadId=) and the CLI (--thread); both ids at once are refused", async () => {
    const byThread = await agents.approvals.history({ threadId: made.thread });
    expect(byThread.requests.map((r) => r.approvalId)).toEqual([made.t]);
    expect(byThread).toEqual(await agents.approvals.history({ runId: made.thread }));
    expect((await agents.approvals.history({ threadId: made.thread, since: new Date(Date.now() + 60_000) })).requests).toEqual([]);
    await expect(agents.approvals.history({ threadId: made.thread, principal: { id: "mallory" } })).rejects.toMatchObject({ code: "AI1013" });
    await expect(agents.approvals.history({ threadId: "" })).rejects.toMatchObject({ code: "AI1001" });
    await expect(agents.approvals.history({ threadId: made.thread, runId: made.runA } as never)).rejects.toMatchObject({ code: "AI1001" });
    const http = await startHttp({ agents, authenticate: (request) => ({ id: request.headers.get("x-user") ?? "anonymous" }) });
    try {
      const thread = await http.call("GET", `/approvals/history?threadId=${encodeURIComponent(made.thread)}`, { user: "auditor" });
      expect(thread).toMatchObject({ status: 200 });
      expect(thread.body).toEqual(JSON.parse(JSON.stringify(byThread)));
      expect(await http.call("GET", `/approvals/history?threadId=${encodeURIComponent(made.thread)}&runId=${made.runA}`, { user: "auditor" })).toMatchObject({ status: 400, body: { error: { code: "AI1040" } } });
    } finally {
      await http.close();
    }
    const [cli, both] = await Promise.all([
      runCli(["--json", "approvals", "history", "--thread", made.thread], env),
      runCli(["approvals", "history", "--thread", made.thread, "--run", made.runA], env),
    ]);
    expect(JSON.parse(cli.stdout)).toEqual(JSON.parse(JSON.stringify(byThread)));
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain("AI1001");
  });

  it("approval_history takes decidedBy / actingFor with since, as the caller", async () => {
    await vi.waitFor(async () => expect(ids(await agents.approvals.history({ decidedBy: "fiona", since }))).toEqual([made.a, made.b]), { timeout: 20_000, interval: 100 });
    const mcp = createMcpServer({ agents, principal: { id: "auditor-b" }, tools: [{ agent, name: "pay", description: "Pays once a person approves" }], approvals: true });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverSide);
    const client = new McpClient({ name: "test", version: "1.0.0" });
    await client.connect(clientSide);
    try {
      const answer = await client.callTool({ name: "approval_history", arguments: { decidedBy: "fiona", since: since.toISOString() } });
      expect(answer.isError).toBeFalsy();
      expect(answer.structuredContent).toEqual(JSON.parse(JSON.stringify(await agents.approvals.history({ decidedBy: "fiona", since, principal: { id: "auditor-b" } }))));
      expect(ids(answer.structuredContent as unknown as PrincipalApprovalHistory)).toEqual([made.a]);
      const noSince = await client.callTool({ name: "approval_history", arguments: { decidedBy: "fiona" } });
      expect(noSince.isError).toBe(true);
      expect((noSince._meta?.["durable-agents/error"] as { code?: string }).code).toBe("AI1040");
    } finally {
      await client.close();
    }
  });
});
