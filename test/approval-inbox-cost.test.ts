/**
 * An inbox that reads for free (issue 49): listing what waits on people, filtering it by
 * `requires` and paging through it costs 0 billed actions, read from the runs' memos with the
 * listing (no query per row); reading one request (`approvals.get`), with what led to it, costs 1. Counted by the
 * server's own `action` counter, on a server of this file's own (with `--metrics-port`). A
 * request whose row is too heavy to copy into the memo (as one made before rows were kept,
 * which has none) is still listed, read from its run: one query, that row's alone.
 * (The memo under a codec, and on SQL visibility: test/approval-inbox-memo.test.ts.)
 */
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool, type AgentClient, type ApprovalRequestInfo } from "../src/index.js";
import type { AgentStack } from "./agent-stack.js";
import { countingStack, type ActionCounter } from "./counting-stack.js";
import { SECRET, uid } from "./harness.js";
import { MAX_INBOX_ROW_BYTES } from "../src/core/inbox-row.js";

let stack: AgentStack;
let counter: ActionCounter;
const asked = new Map<string, ApprovalRequestInfo>();

const sendPayout = defineTool({
  name: "sendPayout",
  description: "Send money",
  input: z.object({ amount: z.number(), to: z.string() }),
  needsApproval: true,
  approval: { meta: ({ amount }) => ({ requires: [amount > 100 ? "payouts:large" : "payouts:approve"] }), notify: (request) => void asked.set(request.runId, request) },
  handler: ({ amount, to }) => `sent ${amount} to ${to}`,
});
const agent = defineAgent({ id: "inbox-cost", model: "gpt-4.1-mini", system: "You pay.", tools: [sendPayout], maxTurns: 3 });

countingStack((s, c) => ((stack = s), (counter = c)));

/** Parks one run per payout, each asking for one call, and waits until the inbox lists them all. */
async function parkAll(agents: AgentClient, payouts: Array<{ amount: number; to: string }>): Promise<string[]> {
  const runIds = payouts.map(() => uid("inbox-cost"));
  await Promise.all(
    runIds.map(async (runId, i) => {
      stack.model.script(runId, [{ toolCalls: [{ name: "sendPayout", arguments: payouts[i]! }] }, { text: "done" }]);
      expect(await agents.run(agent, { prompt: runId, runId, principal: { id: `clerk-${i}` } })).toMatchObject({ status: "deferred" });
    }),
  );
  // Visibility trails the runs by a moment.
  await vi.waitFor(async () => expect((await agents.approvals.list({ limit: 1000 })).approvals).toHaveLength(runIds.length), { timeout: 20_000, interval: 100 });
  return runIds;
}

describe("the inbox", () => {
  it("lists, filters by requires and pages for 0 billed actions, each row as a read of its request shows it; get costs 1", async () => {
    const { agents } = await stack.worker([agent], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } });
    const payouts = Array.from({ length: 12 }, (_, i) => ({ amount: i % 3 === 0 ? 500 + i : 10 + i, to: `payee-${i}` }));
    const runIds = await parkAll(agents, payouts);

    let pages: Array<Awaited<ReturnType<AgentClient["approvals"]["list"]>>> = [];
    let large: Awaited<ReturnType<AgentClient["approvals"]["list"]>> | undefined;
    const listed = await counter.measure(async () => {
      pages = [];
      let cursor: string | undefined;
      do {
        const page = await agents.approvals.list({ limit: 5, ...(cursor ? { cursor } : {}) });
        pages.push(page);
        cursor = page.cursor;
      } while (cursor);
      large = await agents.approvals.list({ requires: "payouts:large", limit: 50 });
    });
    expect(listed).toEqual({ total: 0, byOperation: {} });

    const rows = pages.flatMap((p) => p.approvals);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(rows.map((r) => r.runId).sort()).toEqual([...runIds].sort());
    expect(large!.approvals.map((r) => r.runId).sort()).toEqual(runIds.filter((_, i) => i % 3 === 0).sort());
    // Each row is what reading its request shows (the same calls, meta, principal and fingerprint).
    // A read adds who the run acts for and why it asks, read with the record (below: still 1 action).
    for (const row of rows) expect(await agents.approvals.get({ approvalId: row.approvalId })).toEqual({ ...row, actsFor: row.principal, context: expect.objectContaining({ request: { role: "user", text: row.runId } }) });

    const one = await counter.measure(() => agents.approvals.get({ approvalId: rows[0]!.approvalId }));
    expect(one.total).toBe(1);
  });

  it("lists a request whose row was too heavy for the memo (as one made before rows were kept) by reading it from its run", async () => {
    const { agents } = await stack.worker([agent], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } });
    const to = "y".repeat(MAX_INBOX_ROW_BYTES);
    const [runId] = await parkAll(agents, [{ amount: 1, to }]);
    let rows: Awaited<ReturnType<AgentClient["approvals"]["list"]>>["approvals"] = [];
    const listed = await counter.measure(async () => {
      rows = (await agents.approvals.list()).approvals;
    });
    expect(rows).toEqual([expect.objectContaining({ runId, calls: [expect.objectContaining({ arguments: JSON.stringify({ amount: 1, to }) })] })]);
    // That row alone is read from its run: one query.
    expect(listed.total).toBe(1);
  });
});
