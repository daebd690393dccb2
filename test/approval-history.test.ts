/**
 * The audit trail of approval requests (`agents.approvals.history({ approvalId })`): each
 * request's life as entries, oldest first (asked, reminded n, escalated, decided per call with
 * who, when, the fingerprint of what was shown and an edit as the changes it made, expired),
 * read from the request's record, authorized as `deferral.get`. Refused decisions (a note over
 * the limit) leave it as it was; an unknown id reads RC5046, a refused caller AI1013.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { AgentClient, defineAgent, defineTool, MAX_DECISION_TEXT, type ApprovalRequestInfo, type DeferralEvent } from "../src/index.js";
import { escalatingPayout } from "./gated-fixtures.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";
import { startHttp } from "./http-support.js";

let h: Harness;
let agents: AgentClient;
const notified: ApprovalRequestInfo[] = [];
const expired: DeferralEvent[] = [];

const sendPayout = escalatingPayout(notified);
const shortLived = defineTool({
  name: "shortLived",
  description: "Asks, and expires soon",
  input: z.object({}),
  needsApproval: true,
  approval: { ttl: "1s" },
  handler: () => "ran",
});
const agent = defineAgent({ id: "audited-payouts", model: "gpt-4.1-mini", system: "You pay.", tools: [sendPayout, shortLived], maxTurns: 4 });

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([agent], {
    deferral: { secret: SECRET },
    on: { expired: (e) => void expired.push(e) },
    client: { deferral: { secret: SECRET }, authorize: (req) => req.principal?.id !== "mallory" },
  }));
});
afterAll(() => h?.close());

async function parked(runId: string, toolCalls: Array<{ name: string; arguments: object }>): Promise<string> {
  h.model.script(runId, [{ toolCalls }, { text: "done" }]);
  const ack = await agents.run(agent, { prompt: runId, runId, principal: { id: "clerk" } });
  expect(ack).toMatchObject({ status: "deferred" });
  return (ack as { deferralId: string }).deferralId;
}

describe("approvals.history", () => {
  it("lists a request's life: asked, reminded, escalated, then each call's decision with who, what was shown and the edit's changes", async () => {
    const runId = uid("audit");
    const approvalId = await parked(runId, [
      { name: "sendPayout", arguments: { amount: 120, to: "acme" } },
      { name: "sendPayout", arguments: { amount: 50, to: "globex" } },
    ]);
    expect((await agents.approvals.history({ approvalId })).entries).toEqual([expect.objectContaining({ type: "asked", requires: ["payouts:approve"], principal: { id: "clerk" } })]);
    await vi.waitFor(() => expect(notified.filter((n) => n.runId === runId).map((n) => n.reason)).toEqual(["asked", "reminder", "escalated"]), { timeout: 15_000, interval: 50 });
    const request = await agents.approvals.get({ approvalId });
    const [acme, globex] = request.calls;
    // A note over the limit is refused before anything is recorded: the trail is as it was.
    await expect(
      agents.approvals.decide({ approvalId, decisions: { [acme!.toolCallId]: { approved: true, note: "x".repeat(MAX_DECISION_TEXT + 1) }, [globex!.toolCallId]: { approved: false } } }),
    ).rejects.toMatchObject({ code: "RC5049" });
    expect((await agents.approvals.history({ approvalId })).entries.map((e) => e.type)).toEqual(["asked", "reminded", "escalated"]);

    const decided = await agents.approvals.decide({
      approvalId,
      principal: { id: "cfo" },
      shown: request.callFingerprint!,
      decisions: { [acme!.toolCallId]: { approved: true, input: { amount: 100, to: "acme" }, note: "capped" }, [globex!.toolCallId]: { approved: false, reason: "unknown payee" } },
    });
    expect(decided).toMatchObject({ status: "resumed", outcome: { status: "completed" } });
    const history = await agents.approvals.history({ approvalId });
    const record = await agents.deferrals.getRecord({ deferralId: approvalId });
    expect(history).toMatchObject({ approvalId, runId, agentId: agent.id, status: "resumed" });
    expect(history.entries).toEqual([
      { type: "asked", at: record.deferredAt, calls: request.calls.map(({ toolCallId, toolName, arguments: a }) => ({ toolCallId, toolName, arguments: a })), requires: ["payouts:approve"], principal: { id: "clerk" } },
      { type: "reminded", at: expect.any(String), reminder: 1 },
      { type: "escalated", at: expect.any(String), from: ["payouts:approve"], to: ["payouts:cfo"] },
      { type: "decided", at: record.resumedAt, by: { id: "cfo" }, toolCallId: acme!.toolCallId, toolName: "sendPayout", decision: "approved", shown: request.callFingerprint, changes: [{ path: "/amount", from: 120, to: 100 }], note: "capped" },
      { type: "decided", at: record.resumedAt, by: { id: "cfo" }, toolCallId: globex!.toolCallId, toolName: "sendPayout", decision: "rejected", shown: request.callFingerprint, reason: "unknown payee" },
    ]);
    const times = history.entries.map((e) => Date.parse(e.at!));
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it("ends an undecided request's trail with its expiry", async () => {
    const runId = uid("audit-expired");
    const approvalId = await parked(runId, [{ name: "shortLived", arguments: {} }]);
    await vi.waitFor(() => expect(expired.some((e) => e.deferralId === approvalId)).toBe(true), { timeout: 15_000, interval: 50 });
    const { entries, status } = await agents.approvals.history({ approvalId });
    expect(status).toBe("expired");
    expect(entries.map((e) => e.type)).toEqual(["asked", "expired"]);
  });

  it("refuses an unknown id (RC5046) and a caller authorize refuses (AI1013), the same for a real request", async () => {
    const runId = uid("audit-refused");
    const approvalId = await parked(runId, [{ name: "sendPayout", arguments: { amount: 1, to: "x" } }]);
    await expect(agents.approvals.history({ approvalId: `dfr:9:${runId}` })).rejects.toMatchObject({ code: "RC5046" });
    await expect(agents.approvals.history({ approvalId: "not an id" })).rejects.toMatchObject({ code: expect.stringMatching(/^(RC5046|AI1001)$/) });
    await expect(agents.approvals.history({ approvalId, principal: { id: "mallory" } })).rejects.toMatchObject({ code: "AI1013" });
    await expect(agents.approvals.history({ approvalId: `dfr:9:${runId}`, principal: { id: "mallory" } })).rejects.toMatchObject({ code: "AI1013" });
  });
});

describe("approvals.history({ runId })", () => {
  it("lists every request of a run oldest first, each as history({ approvalId }) reads it; since keeps the later entries; authorized as run.state", async () => {
    const runId = uid("audit-run");
    h.model.script(runId, [
      { toolCalls: [{ name: "sendPayout", arguments: { amount: 1, to: "a" } }] },
      { toolCalls: [{ name: "sendPayout", arguments: { amount: 2, to: "b" } }] },
      { text: "done" },
    ]);
    const ack = await agents.run(agent, { prompt: runId, runId, principal: { id: "clerk" } });
    const first = (ack as { deferralId: string }).deferralId;
    const [call] = (await agents.approvals.get({ approvalId: first })).calls;
    const decided = await agents.approvals.decide({ approvalId: first, principal: { id: "cfo" }, decisions: { [call!.toolCallId]: { approved: true } } });
    expect(decided).toMatchObject({ status: "resumed", outcome: { status: "deferred" } });
    const second = (decided.outcome as { deferralId: string }).deferralId;
    expect(second).not.toBe(first);

    const history = await agents.approvals.history({ runId });
    expect(history.runId).toBe(runId);
    expect(history.requests.map((r) => r.approvalId)).toEqual([first, second]);
    expect(history.requests[0]).toEqual(await agents.approvals.history({ approvalId: first }));
    expect(history.requests[1]).toEqual(await agents.approvals.history({ approvalId: second }));
    expect(history.requests[0]!.entries.map((e) => e.type)).toContain("decided");

    // Since the second request was asked: the first one's life was over by then.
    const asked = history.requests[1]!.entries[0]!.at!;
    const later = await agents.approvals.history({ runId, since: asked });
    expect(later.requests.map((r) => r.approvalId)).toEqual([second]);
    expect(later.requests[0]!.entries[0]).toMatchObject({ type: "asked", at: asked });

    await expect(agents.approvals.history({ runId, principal: { id: "mallory" } })).rejects.toMatchObject({ code: "AI1013" });
    await expect(agents.approvals.history({ runId: uid("no-such-run") })).rejects.toMatchObject({ code: "AI1010" });
    await expect(agents.approvals.history({ runId, since: "not a date" })).rejects.toMatchObject({ code: "AI1001" });
    await expect(agents.approvals.history({ runId: "" })).rejects.toMatchObject({ code: "AI1001" });
  });
});

describe("GET /approvals/:id/history, GET /approvals/history?runId", () => {
  it("answers the trail as the SDK does, 404 RC5046 for an unknown id, 403 AI1013 for a caller the hook refuses, 400 for a malformed id", async () => {
    const runId = uid("audit-http");
    const approvalId = await parked(runId, [{ name: "sendPayout", arguments: { amount: 3, to: "y" } }]);
    const http = await startHttp({ agents, authenticate: (request) => ({ id: request.headers.get("x-user") ?? "anonymous" }) });
    try {
      const path = (id: string) => `/approvals/${encodeURIComponent(id)}/history`;
      const ok = await http.call("GET", path(approvalId), { user: "auditor" });
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual(JSON.parse(JSON.stringify(await agents.approvals.history({ approvalId }))));
      expect(ok.body.entries.map((e: { type: string }) => e.type)).toEqual(["asked"]);
      expect(await http.call("GET", path(`dfr:9:${runId}`), { user: "auditor" })).toMatchObject({ status: 404, body: { error: { code: "RC5046" } } });
      expect(await http.call("GET", path(approvalId), { user: "mallory" })).toMatchObject({ status: 403, body: { error: { code: "AI1013" } } });
      expect(await http.call("GET", path("x".repeat(5000)), { user: "auditor" })).toMatchObject({ status: 400, body: { error: { code: "AI1040" } } });
      // Every request of the run: GET /approvals/history?runId=…, authorized as run.state.
      const byRun = await http.call("GET", `/approvals/history?runId=${encodeURIComponent(runId)}`, { user: "auditor" });
      expect(byRun.status).toBe(200);
      expect(byRun.body).toEqual(JSON.parse(JSON.stringify(await agents.approvals.history({ runId }))));
      expect(byRun.body.requests.map((r: { approvalId: string }) => r.approvalId)).toEqual([approvalId]);
      expect(await http.call("GET", `/approvals/history?runId=${encodeURIComponent(runId)}`, { user: "mallory" })).toMatchObject({ status: 403, body: { error: { code: "AI1013" } } });
      expect(await http.call("GET", `/approvals/history?runId=${encodeURIComponent(runId)}&since=yesterday`, { user: "auditor" })).toMatchObject({ status: 400, body: { error: { code: "AI1040" } } });
      expect(await http.call("GET", "/approvals/history", { user: "auditor" })).toMatchObject({ status: 400, body: { error: { code: "AI1040" } } });
    } finally {
      await http.close();
    }
  });
});
