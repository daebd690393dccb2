/**
 * What the Temporal UI and CLI show of a run and a thread: each model and tool activity's
 * summary, a parked run's current details (which tool it awaits, the deferral and until
 * when), a thread's status, and a run's static summary (the agent and the prompt's first
 * words, or only the agent). Read as the UI reads them: describe(), the workflow metadata
 * query, and the user metadata of ActivityTaskScheduled events.
 */
import { defaultPayloadConverter } from "@temporalio/common";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type AgentClient } from "../src/index.js";
import { linkFor, payoutAgent } from "./fixtures/approvals.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";
import { answerTokenOf, askHuman, chatAgent, lookup } from "./thread-support.js";

let h: Harness;
let agents: AgentClient;
beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([payoutAgent, chatAgent], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, threads: { agent: chatAgent } } }));
});
afterAll(() => h?.close());

/** The workflow's current details, as the UI asks for them (the SDK's built-in metadata query). */
async function currentDetails(workflowId: string): Promise<string> {
  const metadata = await agents.client.workflow.getHandle(workflowId).query<{ currentDetails?: string }>("__temporal_workflow_metadata");
  return metadata.currentDetails ?? "";
}

/** The summaries of the activities the workflow scheduled, in order. */
async function activitySummaries(workflowId: string): Promise<string[]> {
  const history = await agents.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .filter((e) => e.activityTaskScheduledEventAttributes)
    .map((e) => (e.userMetadata?.summary ? defaultPayloadConverter.fromPayload<string>(e.userMetadata.summary) : "(none)"));
}

describe("in the Temporal UI", () => {
  it("a parked run says what it awaits and until when; its activities say what they are; it says when it runs again and completes", async () => {
    const runId = uid("ui-run");
    const prompt = `${runId} please pay the invoice of ACME for March before the end of the week`;
    h.model.script(prompt, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 42 } }] }, { toolCalls: [{ name: "sendPayout", arguments: { amount: 42 } }] }, { text: "paid" }]);
    const ack = await agents.run(payoutAgent, { prompt, runId });
    expect(ack).toMatchObject({ status: "deferred" });
    const { deferralId, expiresAt } = ack as { deferralId: string; expiresAt: string };

    const described = await agents.client.workflow.getHandle(runId).describe();
    expect(await described.staticSummary()).toBe(`agent payouts: "${runId} please pay the invoice of ACME for …"`);
    // Its payload has a schema, which the line does not show: run() read the acknowledgment from the record.
    // The line ends, as a thread's does, with where the run's stream stands (what its readers check first).
    const parkedAt = (await agents.streamUpdates({ runId })).lastSeq;
    expect(await currentDetails(runId)).toBe(`awaiting approval of askApproval (deferral ${deferralId}) until ${expiresAt} · stream ${parkedAt}`);
    expect(await activitySummaries(runId)).toEqual(["model gpt-4.1-mini · step 1", "tool askApproval"]);

    const resumed = await agents.resume({ token: linkFor(runId).token, payload: { approved: true } });
    expect(resumed.outcome).toMatchObject({ status: "completed" });
    // A closed workflow still answers queries (replayed by a worker): its details say how it ended.
    expect(await currentDetails(runId)).toBe(`completed · stream ${(await agents.streamUpdates({ runId })).lastSeq}`);
    expect(await activitySummaries(runId)).toEqual(["model gpt-4.1-mini · step 1", "tool askApproval", "model gpt-4.1-mini · step 2", "tool sendPayout", "model gpt-4.1-mini · step 3"]);
  });

  it("a run's static summary names only the agent with uiSummary: \"agent-only\", from the client or the run", async () => {
    const quiet = (await h.worker([payoutAgent], { client: { uiSummary: "agent-only" } })).agents;
    for (const [client, options] of [
      [quiet, {}],
      [agents, { uiSummary: "agent-only" as const }],
    ] as const) {
      const runId = uid("ui-quiet");
      h.model.script(`${runId} secret plans`, [{ text: "ok" }]);
      await client.run(payoutAgent, { prompt: `${runId} secret plans`, runId, ...options });
      const summary = await (await client.client.workflow.getHandle(runId).describe()).staticSummary();
      expect(summary).toBe("agent payouts");
    }
    // A run's own choice wins over the client's.
    const runId = uid("ui-loud");
    h.model.script(`${runId} hello`, [{ text: "ok" }]);
    await quiet.run(payoutAgent, { prompt: `${runId} hello`, runId, uiSummary: "content" });
    expect(await (await quiet.client.workflow.getHandle(runId).describe()).staticSummary()).toBe(`agent payouts: "${runId} hello"`);
  });

  it("refuses a uiSummary it does not know with AI1001, before starting anything", async () => {
    const runId = uid("ui-typo");
    await expect(agents.start(payoutAgent, { prompt: "x", runId, uiSummary: "everything" as never })).rejects.toMatchObject({ code: "AI1001" });
    await expect(agents.client.workflow.getHandle(runId).describe()).rejects.toThrow();
    expect(() => new (agents.constructor as typeof AgentClient)({ client: agents.client, taskQueue: "q", uiSummary: "all" as never })).toThrow(/AI1001.*uiSummary/);
  });

  it("a thread shows its status: awaiting an async tool by name, running a turn, idle after it", async () => {
    const threadId = uid("ui-thread");
    const prompt = `${threadId} ship it?`;
    h.model.script(prompt, [{ toolCalls: [{ name: "lookup", arguments: { word: "ship" } }] }, { toolCalls: [{ name: "askHuman", arguments: { question: "ship it?" } }] }, { text: "shipped" }]);
    await agents.threads.createThread({ threadId, prompt });
    // Readers check the stream's last seq at the end of the line before paying for a query.
    await vi.waitFor(async () => expect(await currentDetails(threadId)).toMatch(/^awaiting async tool askHuman · stream \d+$/), { timeout: 20_000, interval: 50 });
    const [toolCall] = (await agents.threads.state({ threadId })).toolCalls;
    // The thread says it awaits the tool once its start is scheduled: the callback that gets the token may still be on its way.
    const answerToken = await vi.waitFor(() => answerTokenOf(threadId, toolCall!.toolCallId), { timeout: 20_000, interval: 50 });
    await agents.threads.addToolResult({ threadId, toolCallId: toolCall!.toolCallId, result: "yes", answerToken });
    expect((await agents.threads.settled({ threadId })).status).toBe("completed");
    const { lastSeq } = await agents.threads.streamUpdates({ threadId, fromSeq: Number.MAX_SAFE_INTEGER });
    expect(await currentDetails(threadId)).toBe(`idle (last turn completed) · stream ${lastSeq}`);
    expect(await activitySummaries(threadId)).toEqual([
      "model gpt-4.1-mini · step 1",
      `tool ${lookup.name}`,
      "model gpt-4.1-mini · step 2",
      `tool ${askHuman.name} · async start`,
      "model gpt-4.1-mini · step 3",
    ]);
  });
});
