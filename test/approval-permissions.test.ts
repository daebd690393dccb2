/**
 * Standing permissions: an approver approving a call may grant `{ tool?, until?, match?, for? }`,
 * and later calls of that tool in the same thread or run that fit it run without a request.
 * They are listed and revoked through `authorize`, kept on the granting request's record (its
 * trail says what was granted and when it was revoked), carried across continue-as-new, and
 * checked again by the workflow, so a revocation that lands while the model writes still
 * stops the call. Refused grants change nothing: the token still decides.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { Client } from "@temporalio/client";
import { AgentClient, defineAgent, defineTool, ErrorCode, ThreadsClient, type AuthorizeRequest } from "../src/index.js";
import type { ChatRequest } from "../src/testing/index.js";
import { SECRET, startHarness, uid, workflowTaskFailures, type Harness } from "./harness.js";
import { startHttp } from "./http-support.js";
import { cliEnv, runCli } from "./cli-support.js";
import { launchChromium } from "./chromium.js";
import { approvalUrl } from "../src/http.js";

let h: Harness;
let agents: AgentClient;
let threads: ThreadsClient;
let cliEnvironment: Record<string, string>;

const ran: Array<{ id: string; amount: number }> = [];
/** Each request's token, as its approver's email would carry it, by run or thread. */
const tokens = new Map<string, string>();
const asked: AuthorizeRequest[] = [];

const refund = defineTool({
  name: "refund",
  description: "Refund a customer",
  input: z.object({ amount: z.number() }),
  needsApproval: true,
  approval: { meta: { requires: ["refunds:approve"] }, notify: (request) => void tokens.set(request.threadId ?? request.runId, request.token) },
  handler: ({ amount }, ctx) => {
    ran.push({ id: ctx.threadId ?? ctx.runId, amount });
    return `refunded ${amount}`;
  },
});

const support = defineAgent({ id: "permission-support", model: "gpt-4.1-mini", system: "You refund.", tools: [refund], maxTurns: 8 });
const ranIn = (id: string) => ran.filter((r) => r.id === id).map((r) => r.amount);
const under50 = { type: "object", properties: { amount: { type: "number", maximum: 50 } }, required: ["amount"] };

/** A chat where "refund N" makes one refund call, and a tool's result is answered with it. */
function refundChat(request: ChatRequest) {
  const last = request.messages.at(-1)!;
  if (last.role === "tool") return { text: `tool said: ${String(last.content)}` };
  const amount = Number(/refund (\d+)/.exec(String(last.content))?.[1] ?? NaN);
  return { toolCalls: [{ name: "refund", arguments: { amount } }] };
}

const waiting = (threadId: string) =>
  vi.waitFor(
    async () => {
      const view = await threads.state({ threadId });
      expect(view.approvals).toHaveLength(1);
      return view.approvals[0]!;
    },
    { timeout: 20_000, interval: 50 },
  );

/** The approvals a thread or run asked for, from its stream: one `approval-request` entry each. */
async function requestsIn(threadId: string): Promise<number> {
  const { updates } = await threads.streamUpdates({ threadId });
  return updates.filter((u) => u.type === "approval-request").length;
}

/** The `approved` field of every tool call the workflow scheduled, from its history (all its runs). */
async function scheduledApprovals(client: Client, workflowId: string): Promise<unknown[]> {
  const out: unknown[] = [];
  const runs: string[] = [];
  for await (const w of client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) runs.push(w.runId);
  for (const runId of runs) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    for (const event of history.events ?? []) {
      const scheduled = event.activityTaskScheduledEventAttributes;
      if (scheduled?.activityType?.name !== "callAgentTool") continue;
      const input = JSON.parse(Buffer.from(scheduled.input!.payloads![0]!.data!).toString("utf8")) as { approved?: unknown };
      out.push(input.approved ?? null);
    }
  }
  return out;
}

beforeAll(async () => {
  h = await startHarness();
  const authorize = (request: AuthorizeRequest) => {
    asked.push(request);
    // mallory may read the thread, but the hook lets nobody but the support lead list or revoke permissions.
    if (request.operation === "permission.list" || request.operation === "permission.revoke") return request.principal?.id === "lead";
    // An intern may approve, but not grant: the hook sees a decision's grant.
    if (request.operation === "thread.decide" && request.principal?.id === "intern") return !request.decisions.some((d) => "grant" in d);
    return true;
  };
  const served = await h.worker([support], { deferral: { secret: SECRET }, client: { authorize, deferral: { secret: SECRET }, threads: { agent: support } } });
  agents = served.agents;
  threads = agents.threads;
  cliEnvironment = cliEnv(h, served.taskQueue);
});
afterAll(() => h?.close());

describe("a standing permission in a thread", () => {
  it("lets later calls that fit it run unasked, asks for those outside it, and asks again once revoked; the trail tells both", async () => {
    const threadId = uid("t-perm");
    h.model.respond(`refund 20 ${threadId}`, refundChat);
    await threads.createThread({ threadId, prompt: `refund 20 ${threadId}`, principal: { id: "sam" } });
    const first = await waiting(threadId);
    const callId = first.calls[0]!.toolCallId;
    await threads.decide({ threadId, approvalId: first.approvalId, decisions: { [callId]: { approved: true, grant: { match: under50 } } }, principal: { id: "fiona" } });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed" });

    // Fits the permission: runs at once, nobody asked.
    await threads.sendMessage({ threadId, prompt: "refund 30" });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed", approvals: [] });
    expect(ranIn(threadId)).toEqual([20, 30]);
    expect(await requestsIn(threadId)).toBe(1);
    // Traceable: the call ran as approved by the permission, named in its scheduled input.
    const permissionId = `${first.approvalId}#${callId}`;
    expect((await scheduledApprovals(threads.client, threadId)).at(-1)).toEqual({ deferralId: first.approvalId, permissionId });

    // Outside its match: a person is asked, and says no.
    await threads.sendMessage({ threadId, prompt: "refund 80" });
    const over = await waiting(threadId);
    await threads.decide({ threadId, approvalId: over.approvalId, decisions: { [over.calls[0]!.toolCallId]: { approved: false, reason: "too much" } }, principal: { id: "fiona" } });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed" });
    expect(ranIn(threadId)).toEqual([20, 30]);

    const listed = await agents.approvals.permissions({ threadId, principal: { id: "lead" } });
    expect(listed).toEqual([expect.objectContaining({ permissionId, approvalId: first.approvalId, tool: "refund", match: under50, for: "anyone", grantedBy: { id: "fiona" } })]);
    expect(asked.find((a) => a.operation === "permission.list")).toMatchObject({ runId: threadId, host: "thread", principal: { id: "lead" } });

    const revoked = await agents.approvals.revoke({ threadId, permissionId, principal: { id: "lead" } });
    expect(revoked).toMatchObject({ permissionId, revoked: { by: { id: "lead" } } });
    await threads.sendMessage({ threadId, prompt: "refund 10" });
    const again = await waiting(threadId);
    expect(again.calls[0]).toMatchObject({ toolName: "refund", arguments: JSON.stringify({ amount: 10 }) });
    expect(ranIn(threadId)).toEqual([20, 30]);

    const { entries } = await agents.approvals.history({ approvalId: first.approvalId });
    expect(entries.find((e) => e.type === "decided")).toMatchObject({ by: { id: "fiona" }, decision: "approved", grant: { match: under50, permissionId } });
    expect(entries.at(-1)).toMatchObject({ type: "revoked", permissionId, by: { id: "lead" } });
    expect(await workflowTaskFailures(threads.client, threadId)).toEqual([]);
  });

  it("refuses, changing nothing, a revocation the hook refuses, one of an unknown id, and grants that are no grants; the token still decides", async () => {
    const threadId = uid("t-perm-hostile");
    h.model.respond(`refund 40 ${threadId}`, refundChat);
    await threads.createThread({ threadId, prompt: `refund 40 ${threadId}` });
    const request = await waiting(threadId);
    const id = request.calls[0]!.toolCallId;
    const refused = (grant: unknown, approved = true) => threads.decide({ threadId, approvalId: request.approvalId, decisions: { [id]: { approved, grant } as never }, principal: { id: "fiona" } });
    for (const [grant, approved, issue] of [
      [{ match: { type: "no-such-type" } }, true, /match is not a JSON Schema/],
      [{ match: { enum: ["x".repeat(40_000)] } }, true, /weighs over 4096 bytes/],
      [{ until: "400d" }, true, /more than 90 days/],
      [{ tool: "sendPayout" }, true, /must be the approved call's tool/],
      // This thread acts for nobody: a permission for its principal could never let a call through.
      [{ for: "principal" }, true, /acts for nobody/],
      [{}, false, /grant is for an approval/],
      ["always", true, /must be an object/],
    ] as const) {
      await expect(refused(grant, approved)).rejects.toMatchObject({ code: ErrorCode.ResumePayloadInvalid, message: expect.stringMatching(issue) });
    }
    await expect(threads.decide({ threadId, approvalId: request.approvalId, decisions: { [id]: { approved: true, grant: {} } }, principal: { id: "intern" } })).rejects.toMatchObject({ code: ErrorCode.ThreadUnauthorized });
    expect((await threads.state({ threadId })).approvals).toHaveLength(1);
    await threads.decide({ threadId, approvalId: request.approvalId, decisions: { [id]: { approved: true, grant: {} } }, principal: { id: "fiona" } });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed" });
    const permissionId = `${request.approvalId}#${id}`;

    // A principal the hook refuses: AI1013, nothing read or changed.
    await expect(agents.approvals.revoke({ threadId, permissionId, principal: { id: "mallory" } })).rejects.toMatchObject({ code: ErrorCode.RunUnauthorized });
    await expect(agents.approvals.permissions({ threadId, principal: { id: "mallory" } })).rejects.toMatchObject({ code: ErrorCode.RunUnauthorized });
    // An id that names no permission: AI1032, nothing changed.
    await expect(agents.approvals.revoke({ threadId, permissionId: `${permissionId}x`, principal: { id: "lead" } })).rejects.toMatchObject({ code: ErrorCode.PermissionNotFound });
    await expect(agents.approvals.revoke({ threadId, permissionId: { $ne: 1 } as never, principal: { id: "lead" } })).rejects.toMatchObject({ code: ErrorCode.InvalidDefinition });
    expect(await agents.approvals.permissions({ threadId, principal: { id: "lead" } })).toEqual([expect.not.objectContaining({ revoked: expect.anything() })]);
    // The permission still stands: the next refund runs unasked.
    await threads.sendMessage({ threadId, prompt: "refund 999" });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed", approvals: [] });
    expect(ranIn(threadId)).toEqual([40, 999]);
    // Revoked once, a second revocation names nothing in force.
    await agents.approvals.revoke({ threadId, permissionId, principal: { id: "lead" } });
    await expect(agents.approvals.revoke({ threadId, permissionId, principal: { id: "lead" } })).rejects.toMatchObject({ code: ErrorCode.PermissionNotFound });
    expect(await workflowTaskFailures(threads.client, threadId)).toEqual([]);
  });

  it("is checked again where the state lives: revoked while the model writes, the call the worker let through runs nothing", async () => {
    const threadId = uid("t-perm-race");
    const hold = h.model.hold();
    let turn = 0;
    h.model.respond(`refund 5 ${threadId}`, (request) => {
      const reply = refundChat(request);
      // The second refund's answer waits, with the permissions it was sent, until the test lets it go.
      if ("toolCalls" in reply && ++turn === 2) return { ...reply, hold };
      return reply;
    });
    await threads.createThread({ threadId, prompt: `refund 5 ${threadId}`, principal: { id: "sam" } });
    const request = await waiting(threadId);
    await threads.decide({ threadId, approvalId: request.approvalId, decisions: { [request.calls[0]!.toolCallId]: { approved: true, grant: { for: "principal" } } }, principal: { id: "fiona" } });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed" });
    await threads.sendMessage({ threadId, prompt: "refund 6" });
    await hold.reached;
    await agents.approvals.revoke({ threadId, permissionId: `${request.approvalId}#${request.calls[0]!.toolCallId}`, principal: { id: "lead" } });
    hold.release();
    const done = await threads.settled({ threadId });
    expect(done).toMatchObject({ status: "completed", approvals: [] });
    expect(ranIn(threadId)).toEqual([5]);
    const { messages } = await threads.listMessages({ threadId, limit: 100 });
    expect(String(messages.filter((m) => m.role === "tool").at(-1)?.content)).toMatch(/^Error: "refund" was not run: the standing permission it was allowed by \(.*\) was revoked or lapsed before it could run/);
  });

  it("lapses at its until: once passed (by the workflow's clock, no timer), the next call asks again", async () => {
    const threadId = uid("t-perm-until");
    h.model.respond(`refund 3 ${threadId}`, refundChat);
    await threads.createThread({ threadId, prompt: `refund 3 ${threadId}`, principal: { id: "sam" } });
    const request = await waiting(threadId);
    // A millisecond from the decision: past by the time any later turn's model call is made.
    await threads.decide({ threadId, approvalId: request.approvalId, decisions: { [request.calls[0]!.toolCallId]: { approved: true, grant: { until: "1ms" } } }, principal: { id: "fiona" } });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed" });
    const [permission] = await agents.approvals.permissions({ threadId, principal: { id: "lead" } });
    expect(Date.parse(permission!.until!)).toBe(Date.parse(permission!.grantedAt) + 1);
    await threads.sendMessage({ threadId, prompt: "refund 4" });
    expect((await waiting(threadId)).calls[0]).toMatchObject({ arguments: JSON.stringify({ amount: 4 }) });
    expect(ranIn(threadId)).toEqual([3]);
    // Nothing in force to revoke.
    await expect(agents.approvals.revoke({ threadId, permissionId: permission!.permissionId, principal: { id: "lead" } })).rejects.toMatchObject({ code: ErrorCode.PermissionNotFound });
  });

  it("survives continue-as-new: carried with the request that granted it", async () => {
    const threadId = uid("t-perm-can");
    h.model.respond(`refund 1 ${threadId}`, refundChat);
    await threads.createThread({ threadId, prompt: `refund 1 ${threadId}`, principal: { id: "sam" }, maxHistoryEvents: 80 });
    const request = await waiting(threadId);
    await threads.decide({ threadId, approvalId: request.approvalId, decisions: { [request.calls[0]!.toolCallId]: { approved: true, grant: { tool: "refund", until: "1d", for: "principal" } } }, principal: { id: "fiona" } });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed" });
    // Turns of unasked refunds, until the thread has rolled over, and one more after.
    let amount = 1;
    for (let rolled = 0; rolled < 2; ) {
      expect(amount).toBeLessThan(20);
      await threads.sendMessage({ threadId, prompt: `refund ${++amount}` });
      const done = await threads.settled({ threadId });
      expect(done).toMatchObject({ status: "completed", approvals: [] });
      if (done.generation > 0) rolled++;
    }
    expect(ranIn(threadId)).toEqual(Array.from({ length: amount }, (_, i) => i + 1));
    expect(await requestsIn(threadId)).toBe(1);
    expect(await agents.approvals.permissions({ threadId, principal: { id: "lead" } })).toEqual([expect.objectContaining({ tool: "refund", for: "principal", principal: { id: "sam" } })]);
  });
});

describe("a standing permission in a run", () => {
  it("lets the run's later calls that fit it run unasked: one request for the whole run", async () => {
    const runId = uid("perm-run");
    h.model.script(runId, [
      { toolCalls: [{ name: "refund", arguments: { amount: 20 }, id: "first" }] },
      { toolCalls: [{ name: "refund", arguments: { amount: 10 }, id: "second" }, { name: "refund", arguments: { amount: 45 }, id: "third" }] },
      { check: (req) => expect(req.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual(["refunded 20", "refunded 10", "refunded 45"]), text: "all refunded" },
    ]);
    const ack = await agents.run(support, { prompt: runId, runId, principal: { id: "sam" } });
    expect(ack).toMatchObject({ status: "deferred" });
    const approvalId = (ack as { deferralId: string }).deferralId;
    // A grant on a rejection is refused (RC5049), and the token still decides.
    await expect(agents.approvals.decide({ approvalId, decisions: { first: { approved: false, grant: {} } as never } })).rejects.toMatchObject({ code: ErrorCode.ResumePayloadInvalid });
    const decided = await agents.approvals.decide({ approvalId, decisions: { first: { approved: true, grant: { match: under50, until: "2h" } } }, principal: { id: "fiona" } });
    expect(decided).toMatchObject({ status: "resumed", outcome: { status: "completed", result: { text: "all refunded" } } });
    expect(ranIn(runId).sort()).toEqual([10, 20, 45]);
    expect(await agents.approvals.permissions({ runId, principal: { id: "lead" } })).toEqual([expect.objectContaining({ permissionId: `${approvalId}#first`, until: expect.any(String) })]);
    expect((await scheduledApprovals(agents.client, runId)).filter(Boolean)).toEqual([
      { deferralId: approvalId },
      { deferralId: approvalId, permissionId: `${approvalId}#first` },
      { deferralId: approvalId, permissionId: `${approvalId}#first` },
    ]);
    // The run has ended: it keeps no permission in force; a run that never was is named so.
    await expect(agents.approvals.revoke({ runId, permissionId: `${approvalId}#first`, principal: { id: "lead" } })).rejects.toMatchObject({ code: ErrorCode.PermissionNotFound });
    await expect(agents.approvals.permissions({ runId: uid("no-such-run"), principal: { id: "lead" } })).rejects.toMatchObject({ code: ErrorCode.RunNotFound });
    await expect(agents.approvals.revoke({ threadId: uid("no-such-thread"), permissionId: "x#y", principal: { id: "lead" } })).rejects.toMatchObject({ code: ErrorCode.ThreadNotFound });
    expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
  });
});

describe("standing permissions over HTTP", () => {
  it("grants with a decision, lists and revokes beside /approvals, as the authenticated caller", async () => {
    const http = await startHttp({ agents, authenticate: (request) => ({ id: request.headers.get("x-user") ?? "nobody" }) });
    try {
      const threadId = uid("t-perm-http");
      h.model.respond(`refund 7 ${threadId}`, refundChat);
      await threads.createThread({ threadId, prompt: `refund 7 ${threadId}`, principal: { id: "sam" } });
      const request = await waiting(threadId);
      const toolCallId = request.calls[0]!.toolCallId;
      // The grant crosses the front door with the decision.
      const decided = await http.call("POST", `/threads/${threadId}/approvals/${encodeURIComponent(request.approvalId)}`, { user: "fiona", body: { decisions: { [toolCallId]: { approved: true, grant: { match: under50 } } } } });
      expect(decided.status).toBe(200);
      expect(await threads.settled({ threadId })).toMatchObject({ status: "completed" });
      const permissionId = `${request.approvalId}#${toolCallId}`;

      expect(await http.call("GET", `/permissions?threadId=${threadId}`, { user: "mallory" })).toMatchObject({ status: 403, body: { error: { code: "AI1013" } } });
      expect(await http.call("GET", `/permissions?threadId=${threadId}&runId=${threadId}`, { user: "lead" })).toMatchObject({ status: 400, body: { error: { code: "AI1040" } } });
      const listed = await http.call("GET", `/permissions?threadId=${threadId}`, { user: "lead" });
      expect(listed).toMatchObject({ status: 200, body: { permissions: [{ permissionId, tool: "refund", match: under50, grantedBy: { id: "fiona" } }] } });

      expect(await http.call("POST", "/permissions/revoke", { user: "mallory", body: { threadId, permissionId } })).toMatchObject({ status: 403, body: { error: { code: "AI1013" } } });
      expect(await http.call("POST", "/permissions/revoke", { user: "lead", body: { threadId, permissionId: "dfr:9:nothing#x" } })).toMatchObject({ status: 404, body: { error: { code: "AI1032" } } });
      expect(await http.call("POST", "/permissions/revoke", { user: "lead", body: { threadId, permissionId: "\u0000" } })).toMatchObject({ status: 400, body: { error: { code: "AI1040" } } });
      // Nothing refused changed anything: a fitting call still runs unasked.
      await threads.sendMessage({ threadId, prompt: "refund 8" });
      expect(await threads.settled({ threadId })).toMatchObject({ status: "completed", approvals: [] });
      expect(ranIn(threadId)).toEqual([7, 8]);

      expect(await http.call("POST", "/permissions/revoke", { user: "lead", body: { threadId, permissionId } })).toMatchObject({ status: 200, body: { permissionId, revoked: { by: { id: "lead" } } } });
      await threads.sendMessage({ threadId, prompt: "refund 9" });
      expect((await waiting(threadId)).calls[0]).toMatchObject({ arguments: JSON.stringify({ amount: 9 }) });
    } finally {
      await http.close();
    }
  });
});

describe("standing permissions from a shell", () => {
  it("grants with `approvals approve --grant`, lists and revokes with `permissions`", async () => {
    const cli = (...args: string[]) => runCli(args, cliEnvironment);
    const threadId = uid("t-perm-cli");
    h.model.respond(`refund 11 ${threadId}`, refundChat);
    await threads.createThread({ threadId, prompt: `refund 11 ${threadId}`, principal: { id: "sam" } });
    const request = await waiting(threadId);
    expect(await cli("approvals", "approve", request.approvalId, "--as", "fiona", "--grant", "[1]")).toMatchObject({ code: 2, stderr: expect.stringMatching(/--grant must be a JSON object/) });
    const approved = await cli("approvals", "approve", request.approvalId, "--as", "fiona", "--grant", JSON.stringify({ match: under50 }));
    expect(approved).toMatchObject({ code: 0, stdout: expect.stringMatching(/approved .* granting \{"match"/) });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed" });
    const permissionId = `${request.approvalId}#${request.calls[0]!.toolCallId}`;

    const listed = await cli("permissions", "list", "--thread", threadId);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(permissionId);
    expect(listed.stdout).toMatch(/refund\s+in force\s+-\s+anyone/);
    expect(JSON.parse((await cli("--json", "permissions", "list", "--thread", threadId)).stdout)).toMatchObject({ permissions: [{ permissionId, grantedBy: { id: "fiona" } }] });
    expect(await cli("permissions", "list", "--thread", threadId, "--run", threadId)).toMatchObject({ code: 2, stderr: expect.stringMatching(/exactly one of --run/) });
    expect(await cli("permissions", "revoke", `${permissionId}x`, "--thread", threadId)).toMatchObject({ code: 1, stderr: expect.stringMatching(/AI1032/) });

    expect(await cli("permissions", "revoke", permissionId, "--thread", threadId, "--as", "lead")).toMatchObject({ code: 0, stdout: expect.stringMatching(/^revoked: /) });
    expect((await cli("permissions", "list", "--thread", threadId)).stdout).toMatch(/refund\s+revoked 20/);
    const trail = await cli("approvals", "history", request.approvalId);
    expect(trail.stdout).toMatch(/approved .* by fiona granted \S+#\S+ matching a schema/);
    expect(trail.stdout).toMatch(/revoked\s+\S+#\S+ by lead/);
  });
});

describe("standing permissions on the approval page", () => {
  it("grants one with an approval when the approver ticks \"Always allow\" (Chromium)", async () => {
    const browser = await launchChromium();
    const http = await startHttp({ agents, authenticate: (request) => ({ id: request.headers.get("x-user") ?? "nobody" }) });
    try {
      const runId = uid("perm-page");
      h.model.script(runId, [
        { toolCalls: [{ name: "refund", arguments: { amount: 12 }, id: "first" }] },
        { toolCalls: [{ name: "refund", arguments: { amount: 13 }, id: "second" }] },
        { text: "both refunded" },
      ]);
      const ack = await agents.run(support, { prompt: runId, runId, principal: { id: "sam" } });
      expect(ack.status).toBe("deferred");
      const token = await vi.waitFor(() => tokens.get(runId) ?? Promise.reject(new Error("no link sent yet")), { timeout: 20_000 });
      const context = await browser.newContext({ extraHTTPHeaders: { "x-user": "fiona" } });
      const page = await context.newPage();
      await page.goto(approvalUrl(`${http.url}/approve`, token));
      const call = page.getByRole("group", { name: /^Call 1 of 1: refund/ });
      await call.getByLabel("Approve", { exact: true }).check();
      await call.getByLabel(/^Always allow refund in this conversation/).check();
      await page.getByRole("button", { name: "Submit decisions" }).click();
      await page.waitForSelector(".state-outcome");
      expect(await page.textContent("main")).toContain("both refunded");
      await context.close();
      // The second refund ran on the permission: one request for the run.
      expect(ranIn(runId).sort()).toEqual([12, 13]);
      expect(await agents.approvals.permissions({ runId, principal: { id: "lead" } })).toEqual([expect.objectContaining({ permissionId: `${(ack as { deferralId: string }).deferralId}#first`, tool: "refund", grantedBy: { id: "fiona" } })]);
    } finally {
      await http.close();
      await browser.close();
    }
  });
});
