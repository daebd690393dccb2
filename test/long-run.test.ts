/**
 * Long runs continue as new: between turns, with nothing waiting, a run whose history
 * grew long hands its transcript, progress, deferral records and deadline to a fresh
 * execution of the same workflow, so it never meets Temporal's history limits. Here
 * `maxHistoryEvents` makes it happen every few turns.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { type AgentClient, type ChatMessage, defineAgent, defineTool } from "../src/index.js";
import { approvalOptions, askApproval, linkFor } from "./fixtures/approvals.js";
import { completed, SECRET, startHarness, uid, type Harness } from "./harness.js";

const step = defineTool({ name: "step", description: "One small step", input: z.object({ i: z.number() }), handler: ({ i }) => `ok ${i}` });
const walker = defineAgent({ ...approvalOptions, id: "walker", tools: [step, askApproval], maxTurns: 200 });

let h: Harness;
let agents: AgentClient;
beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([walker], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } }));
});
afterAll(() => h?.close());

/** Steps until `turns`, asking for approval at `askAt`, then answers. */
function script(runId: string, turns: number, askAt?: number) {
  h.model.respond(runId, (_req, turn) =>
    turn === askAt
      ? { toolCalls: [{ name: "askApproval", arguments: { amount: turn } }], usage: { promptTokens: 1, completionTokens: 1 } }
      : turn < turns
        ? { toolCalls: [{ name: "step", arguments: { i: turn } }], usage: { promptTokens: 1, completionTokens: 1 } }
        : { text: `walked ${turns}`, usage: { promptTokens: 1, completionTokens: 1 } },
  );
}

async function transcript(runId: string): Promise<ChatMessage[]> {
  const all: ChatMessage[] = [];
  let cursor: string | undefined;
  do {
    const page = await agents.listMessages({ runId, limit: 25, ...(cursor ? { cursor } : {}) });
    all.push(...page.messages);
    cursor = page.cursor;
  } while (cursor);
  return all;
}

/** Every execution of the run, oldest first, with its history length. */
async function executions(runId: string) {
  const found: Array<{ runId: string; events: number }> = [];
  for await (const execution of agents.client.workflow.list({ query: `WorkflowId = "${runId}"` })) {
    const history = await agents.client.workflow.getHandle(runId, execution.runId).fetchHistory();
    found.push({ runId: execution.runId, events: history.events?.length ?? 0 });
  }
  return found;
}

describe("a long run", () => {
  it("continues as new as its history grows, and completes with its transcript, turns and usage carried", async () => {
    const runId = uid("walk");
    script(runId, 40);
    const result = await completed(agents.run(walker, { prompt: runId, runId, maxHistoryEvents: 100 }));
    expect(result).toMatchObject({ text: "walked 40", turnsUsed: 41, usage: { promptTokens: 41, completionTokens: 41, totalTokens: 82 }, messageCount: 82 });
    const messages = await transcript(runId);
    expect(messages).toHaveLength(82);
    expect(messages[0]).toEqual({ role: "user", content: runId });
    expect(messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual(Array.from({ length: 40 }, (_, i) => `ok ${i}`));
    // Several executions, none of whose history grew much past the limit.
    await vi.waitFor(async () => expect((await executions(runId)).length).toBeGreaterThanOrEqual(4), { timeout: 20_000, interval: 500 });
    for (const execution of await executions(runId)) expect(execution.events).toBeLessThan(140);
    h.model.assertNoFailures();
  });

  it("acknowledges a deferral made after it continued as new, resumes it with its token, and the resume follows the run to its end", async () => {
    const runId = uid("walk-ask");
    script(runId, 40, 15);
    // settled() started before the first continue-as-new: it follows the run to the deferral.
    const handle = await agents.start(walker, { prompt: runId, runId, maxHistoryEvents: 100 });
    const ack = await handle.settled();
    expect(ack).toMatchObject({ status: "deferred", deferralId: linkFor(runId).deferralId });
    const first = (await agents.workflowHandle(runId).describe()).raw.workflowExecutionInfo?.firstRunId;
    expect((await agents.workflowHandle(runId).describe()).runId).not.toBe(first);
    const parkedIn = (await agents.workflowHandle(runId).describe()).runId;

    // The run continues as new again while the resume waits for its next settled state.
    const resumed = await agents.resume({ token: linkFor(runId).token, payload: { approved: true } });
    expect(resumed).toMatchObject({ status: "resumed", outcome: { status: "completed", result: { text: "walked 40", turnsUsed: 41 } } });
    // It did continue as new after the resume: the run finished in a later execution than the one it parked in.
    expect((await agents.workflowHandle(runId).describe()).runId).not.toBe(parkedIn);
    // The record went with the run: a second resume with the spent token reads the first outcome.
    await expect(agents.resume({ token: linkFor(runId).token, payload: { approved: false } })).resolves.toMatchObject({
      status: "duplicate",
      outcome: { status: "completed" },
    });
    const messages = await transcript(runId);
    expect(messages.find((m) => m.role === "tool" && m.content === '{"approved":true}')).toBeDefined();
    h.model.assertNoFailures();
  });

  it("refuses a maxHistoryEvents that would continue as new every turn (AI1001), starting nothing", async () => {
    const runId = uid("walk-bad");
    await expect(agents.start(walker, { prompt: runId, runId, maxHistoryEvents: 10 })).rejects.toMatchObject({ code: "AI1001" });
    await expect(agents.start(walker, { prompt: runId, runId, maxHistoryEvents: 1.5 as number })).rejects.toMatchObject({ code: "AI1001" });
    await expect(agents.state({ runId })).rejects.toMatchObject({ code: "AI1010" });
  });
});
