/**
 * Fifty runs parked at once, their worker gone, resumed by a worker that never saw them:
 * every parked run lives in the server alone (persistence and visibility), which is what
 * the PostgreSQL lane (vitest.postgres.config.ts) proves on the production shape too.
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { payoutAgent, payouts, linkFor } from "./fixtures/approvals.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const RUNS = 50;

it("parks 50 runs, lists them by search attributes, and a fresh worker resumes every one exactly once", async () => {
  const first = await h.worker([payoutAgent], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } });
  const tag = uid("many");
  const runIds = Array.from({ length: RUNS }, (_, i) => `${tag}-${i}`);
  const acks = await Promise.all(
    runIds.map((runId, i) => {
      h.model.script(runId, [
        { toolCalls: [{ name: "askApproval", arguments: { amount: i } }] },
        { toolCalls: [{ name: "sendPayout", arguments: { amount: i } }] },
        { text: `paid ${i}` },
      ]);
      return first.agents.run(payoutAgent, { prompt: runId, runId });
    }),
  );
  expect(acks.filter((a) => a.status === "deferred")).toHaveLength(RUNS);

  // Nothing of the parked runs stays in a worker: the one that parked them is gone.
  first.worker.shutdown();
  await first.running;
  const second = await h.worker([payoutAgent], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } }, taskQueue: first.taskQueue });

  const listed = async (status: "deferred" | "resumed") => {
    const ids = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await second.agents.deferrals.list({ status, agentId: payoutAgent.id, limit: 100, ...(cursor ? { cursor } : {}) });
      for (const row of page.deferrals) if (row.runId.startsWith(`${tag}-`)) ids.add(row.runId);
      cursor = page.cursor;
    } while (cursor);
    return ids;
  };
  await vi.waitFor(async () => expect(await listed("deferred")).toEqual(new Set(runIds)), { timeout: 30_000, interval: 500 });

  const resumed = await Promise.all(runIds.map((runId) => second.agents.resume({ token: linkFor(runId).token, payload: { approved: true } })));
  expect(resumed.map((r) => r.status === "resumed" && r.outcome)).toEqual(
    runIds.map((_, i) => expect.objectContaining({ status: "completed", result: expect.objectContaining({ text: `paid ${i}` }) })),
  );
  expect(payouts.filter((p) => p.runId.startsWith(`${tag}-`)).map((p) => p.amount).sort((a, b) => a - b)).toEqual(runIds.map((_, i) => i));
  await vi.waitFor(async () => expect(await listed("resumed")).toEqual(new Set(runIds)), { timeout: 30_000, interval: 500 });
  h.model.assertNoFailures();
});
