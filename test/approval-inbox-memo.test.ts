/**
 * The inbox's rows as the runs' memos keep them (issue 49), from the server's visibility
 * store (the dev server's, and SQL visibility in the PostgreSQL lane): a run's and a thread's
 * request listed with what reading it shows; under a codec, the memo where visibility stores
 * it is not plain text, and the client lists it decoded. (What listing costs:
 * test/approval-inbox-cost.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { aesGcmCodec, type AgentClient } from "../src/index.js";
import { INBOX_MEMO_KEY } from "../src/core/inbox-row.js";
import { gatedFixtures } from "./gated-fixtures.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";

let h: Harness;

/** A payout agent whose sendPayout waits for a person with `payouts:approve`. */
const { payouts: agent } = gatedFixtures("inbox-memo");

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const listed = (agents: AgentClient, n: number) =>
  vi.waitFor(
    async () => {
      const { approvals } = await agents.approvals.list();
      expect(approvals).toHaveLength(n);
      return approvals;
    },
    { timeout: 20_000, interval: 100 },
  );

describe("the inbox's rows", () => {
  it("list a run's and a thread's request as reading each shows it", async () => {
    const { agents } = await h.worker([agent], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, threads: { agent } } });
    const runId = uid("memo-run");
    const threadId = uid("memo-thread");
    h.model.script(runId, [{ toolCalls: [{ name: "sendPayout", arguments: { amount: 3, to: "acme" } }] }, { text: "done" }]);
    h.model.script(threadId, [{ toolCalls: [{ name: "sendPayout", arguments: { amount: 4, to: "globex" } }] }, { text: "done" }]);
    expect(await agents.run(agent, { prompt: runId, runId, principal: { id: "clerk" } })).toMatchObject({ status: "deferred" });
    await agents.threads.createThread({ threadId, prompt: threadId, principal: { id: "sam" } });
    const rows = await listed(agents, 2);
    expect(rows.map((r) => r.runId).sort()).toEqual([runId, threadId].sort());
    for (const row of rows) expect(await agents.approvals.get({ approvalId: row.approvalId })).toEqual({ ...row, actsFor: row.principal, context: expect.objectContaining({ request: { role: "user", text: row.runId } }) });
    expect(rows.find((r) => r.runId === threadId)).toMatchObject({ kind: "approval", principal: { id: "sam" }, calls: [{ toolName: "sendPayout", arguments: JSON.stringify({ amount: 4, to: "globex" }) }] });
  });

  it("are encrypted by the client's codec where visibility stores them, and listed decoded", async () => {
    const codec = aesGcmCodec({ keys: { k: Buffer.alloc(32, 7) }, current: "k" });
    const dataConverter = { payloadCodecs: [codec] };
    const { agents, taskQueue } = await h.worker([agent], { deferral: { secret: SECRET }, worker: { dataConverter }, client: { deferral: { secret: SECRET }, dataConverter } });
    const runId = uid("memo-codec");
    h.model.script(runId, [{ toolCalls: [{ name: "sendPayout", arguments: { amount: 7, to: "secret-payee-4711" } }] }, { text: "done" }]);
    expect(await agents.run(agent, { prompt: runId, runId, principal: { id: "clerk-0" } })).toMatchObject({ status: "deferred" });
    const [row] = await listed(agents, 1);
    expect(row).toMatchObject({ runId, calls: [{ toolName: "sendPayout", arguments: JSON.stringify({ amount: 7, to: "secret-payee-4711" }) }], principal: { id: "clerk-0" } });

    // What anyone with namespace access reads from visibility: the memo's bytes are not the row.
    const raw = await h.connection.workflowService.listWorkflowExecutions({ namespace: h.namespace, query: `TaskQueue = "${taskQueue}"` });
    const memo = raw.executions?.[0]?.memo?.fields?.[INBOX_MEMO_KEY];
    expect(memo?.data?.length).toBeGreaterThan(0);
    expect(Buffer.from(memo!.metadata!.encoding!).toString()).toBe("binary/encrypted");
    const stored = Buffer.from(memo!.data!).toString("latin1");
    for (const plain of ["secret-payee-4711", "sendPayout", "clerk-0", "payouts:approve"]) expect(stored).not.toContain(plain);
  });
});
