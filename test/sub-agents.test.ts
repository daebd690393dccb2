/**
 * Sub-agents as child workflows: an agent lists others in `agents`, its model calls one as a
 * tool, and the run starts that agent as a Temporal child workflow (no activity between),
 * whose final answer (its typed output as JSON) is the call's result. The child keeps its own
 * transcript; its turns and tokens count in the parent's, within the turns the parent has
 * left; a cancel of the parent stops both; what goes wrong in the child the parent's model
 * hears as a tool error. A child that defers parks the parent too: run() answers with the
 * child's deferral, the inbox lists it once (naming the parent), its token resumes the child,
 * and the resume answers with the parent's next settled state.
 * Threads have sub-agents too: test/thread-sub-agents.test.ts.
 */
import proto from "@temporalio/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentClient, defineAgent, defineTool, type ChatMessage } from "../src/index.js";
import { subAgentDeferralSignal, subAgentOutcomeQuery } from "../src/core/wire/run.js";
import { completed, SECRET, startHarness, uid, workflowTaskFailures, type Harness } from "./harness.js";

const { EventType } = proto.temporal.api.enums.v1;

const lookup = defineTool({ name: "lookup", description: "Looks a fact up", input: z.object({ topic: z.string() }), handler: ({ topic }) => `${topic}: 42` });
const tokens = new Map<string, string>();
const askBoss = defineTool({
  name: "askBoss",
  description: "Asks the boss",
  input: z.object({}),
  handler: (_input, ctx) => {
    tokens.set(ctx.deferralId, ctx.deferral.token);
    return ctx.defer({ ttl: "1h", schema: z.object({ ok: z.boolean() }) });
  },
});
const paid: string[] = [];
const pay = defineTool({ name: "pay", description: "Pays", input: z.object({ amount: z.number() }), needsApproval: true, handler: ({ amount }, ctx) => (paid.push(ctx.runId), `paid ${amount}`) });
const researcher = defineAgent({ id: "sub-researcher", description: "Finds facts", model: "gpt-4.1-mini", system: "You research.", tools: [lookup, askBoss, pay], maxTurns: 6 });
const rater = defineAgent({ id: "sub-rater", model: "gpt-4.1-mini", system: "You rate.", output: z.object({ score: z.number() }), maxTurns: 2 });
/** A sub-agent with a sub-agent of its own: a deferral two levels down parks all three. */
const manager = defineAgent({ id: "sub-manager", description: "Manages the research", model: "gpt-4.1-mini", system: "You manage.", agents: [researcher], maxTurns: 6 });
const lead = defineAgent({ id: "sub-lead", model: "gpt-4.1-mini", system: "You delegate.", agents: [researcher, rater, manager], maxTurns: 8 });

let h: Harness;
let agents: AgentClient;

beforeAll(async () => {
  h = await startHarness();
  // Only the lead is listed: its sub-agents are registered with it.
  ({ agents } = await h.worker([lead], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } }));
});
afterAll(() => h?.close());

const childId = (runId: string, toolCallId: string) => `${runId}/agent/${toolCallId}`;
const toolResults = (messages: ChatMessage[]) => messages.filter((m) => m.role === "tool").map((m) => m.content);

async function historyTypes(runId: string) {
  return ((await agents.workflowHandle(runId).fetchHistory()).events ?? []).map((e) => e.eventType);
}

describe("a sub-agent", () => {
  it("runs as a child workflow whose answer is the call's result; its transcript stays its own and its spend counts in the parent's", async () => {
    const runId = uid("sub-lead");
    h.model.script(runId, [{ toolCalls: [{ id: "c1", name: "sub-researcher", arguments: { prompt: `${runId} research the answer` } }] }, { text: "The answer is 42." }]);
    h.model.script(`${runId} research the answer`, [{ toolCalls: [{ name: "lookup", arguments: { topic: "answer" } }] }, { text: "It is 42." }]);
    const result = await completed(agents.run(lead, { prompt: runId, runId }));
    expect(result).toMatchObject({ text: "The answer is 42.", turnsUsed: 4 });

    // The lead's model was offered the sub-agents as tools, with the description given.
    const offered = h.model.requests.find((r) => r.messages.some((m) => m.content === runId))?.tools as Array<{ function: { name: string; description: string } }>;
    expect(offered.map((t) => t.function.name)).toEqual(["sub-researcher", "sub-rater", "sub-manager"]);
    expect(offered[0]!.function.description).toBe("Finds facts");

    const parent = (await agents.listMessages({ runId })).messages;
    expect(toolResults(parent)).toEqual(["It is 42."]);
    const child = (await agents.listMessages({ runId: childId(runId, "c1") })).messages;
    expect(child.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(toolResults(child)).toEqual(["answer: 42"]);
    expect(await agents.result({ runId: childId(runId, "c1") })).toMatchObject({ text: "It is 42.", turnsUsed: 2 });
    // A child workflow, and no activity in between: the lead's activities are its own two model calls.
    const types = await historyTypes(runId);
    expect(types.filter((t) => t === EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED)).toHaveLength(1);
    expect(types.filter((t) => t === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toHaveLength(2);
    expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
  });

  it("answering hugely has its answer cut to the call's share of the run's room, with a note for the model; the child keeps it whole", async () => {
    const runId = uid("sub-huge");
    const huge = "y".repeat(900_000);
    h.model.script(runId, [
      { toolCalls: [{ id: "h1", name: "sub-researcher", arguments: { prompt: `${runId} write a lot` } }] },
      { check: (req) => expect(String(req.messages.at(-1)?.content)).toMatch(/\[Truncated by durable-agents: this result was 900000 bytes/), text: "Too long to read." },
    ]);
    h.model.script(`${runId} write a lot`, [{ text: huge }]);
    expect(await agents.run(lead, { prompt: runId, runId })).toMatchObject({ status: "completed", text: "Too long to read." });
    const [result] = toolResults((await agents.listMessages({ runId })).messages);
    expect(result!.length).toBeLessThanOrEqual(262_144);
    expect(result!.startsWith("yyyy")).toBe(true);
    expect((await agents.result({ runId: childId(runId, "h1") })).text).toHaveLength(900_000);
    h.model.assertNoFailures();
  });

  it("answers with its typed output as JSON", async () => {
    const runId = uid("sub-typed");
    h.model.script(runId, [{ toolCalls: [{ id: "r1", name: "sub-rater", arguments: { prompt: `${runId} rate it` } }] }, { text: "rated" }]);
    h.model.script(`${runId} rate it`, [{ text: JSON.stringify({ score: 7 }) }]);
    await completed(agents.run(lead, { prompt: runId, runId }));
    expect(toolResults((await agents.listMessages({ runId })).messages)).toEqual([JSON.stringify({ score: 7 })]);
  });

  it("that defers parks its parent: run() answers with its deferral, listed once with the parent, and its token resumes both", async () => {
    const runId = uid("sub-defers");
    h.model.script(runId, [{ toolCalls: [{ id: "d1", name: "sub-researcher", arguments: { prompt: `${runId} ask` } }] }, { text: "The boss agreed." }]);
    h.model.script(`${runId} ask`, [{ toolCalls: [{ name: "askBoss", arguments: {} }] }, { text: "agreed" }]);
    const ack = await agents.run(lead, { prompt: runId, runId });
    const child = childId(runId, "d1");
    expect(ack).toMatchObject({ status: "deferred", deferralId: expect.stringContaining(child), schema: { type: "object" } });
    const { deferralId } = ack as { deferralId: string };
    expect(await agents.handle(runId).settled()).toEqual(ack);
    expect(await agents.state({ runId })).toMatchObject({ status: "deferred", deferralId });
    // Listed once, as the child's, naming the parent that waits.
    const rows = (await agents.deferrals.list({ status: "deferred" })).deferrals.filter((d) => d.deferralId === deferralId);
    expect(rows).toEqual([expect.objectContaining({ runId: child, parentRunId: runId })]);
    const listed = (await agents.approvals.list()).approvals.filter((a) => a.approvalId === deferralId);
    expect(listed).toEqual([expect.objectContaining({ runId: child, parentRunId: runId, kind: "deferral" })]);

    // The token resumes the child; the answer is the parent's next settled state.
    const resumed = await agents.resume({ token: tokens.get(deferralId)!, payload: { ok: true } });
    expect(resumed).toMatchObject({ status: "resumed", outcome: { status: "completed", result: { text: "The boss agreed." } } });
    expect(toolResults((await agents.listMessages({ runId })).messages)).toEqual(["agreed"]);
    expect((await agents.deferrals.list({ status: "deferred" })).deferrals.filter((d) => d.deferralId === deferralId)).toEqual([]);
    expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
    // Resumed again (a double click): a duplicate, answered with the first resume's outcome, the parent's.
    expect(await agents.resume({ token: tokens.get(deferralId)!, payload: { ok: true } })).toEqual({ status: "duplicate", deferralId, outcome: resumed.outcome });
  });

  it("resumed twice answers the duplicate with the parent's state right after the first resume, though the parent moved on since", async () => {
    const runId = uid("sub-dup");
    h.model.script(runId, [
      { toolCalls: [{ id: "a1", name: "sub-researcher", arguments: { prompt: `${runId} ask once` } }] },
      { toolCalls: [{ id: "a2", name: "sub-researcher", arguments: { prompt: `${runId} ask twice` } }] },
      { text: "asked twice" },
    ]);
    h.model.script(`${runId} ask once`, [{ toolCalls: [{ name: "askBoss", arguments: {} }] }, { text: "yes once" }]);
    h.model.script(`${runId} ask twice`, [{ toolCalls: [{ name: "askBoss", arguments: {} }] }, { text: "yes twice" }]);
    const first = (await agents.run(lead, { prompt: runId, runId })) as { deferralId: string };
    const resumed = await agents.resume({ token: tokens.get(first.deferralId)!, payload: { ok: true } });
    // The parent's next settled state: parked on the second sub-agent's deferral.
    expect(resumed.outcome).toMatchObject({ status: "deferred", deferralId: expect.stringContaining(childId(runId, "a2")) });
    const second = (resumed.outcome as { deferralId: string }).deferralId;
    expect(await agents.resume({ token: tokens.get(second)!, payload: { ok: true } })).toMatchObject({ status: "resumed", outcome: { status: "completed" } });
    expect(await agents.resume({ token: tokens.get(first.deferralId)!, payload: { ok: true } })).toEqual({ status: "duplicate", deferralId: first.deferralId, outcome: resumed.outcome });
  });

  it("two levels down parks every run above it; the token resumes the three", async () => {
    const runId = uid("sub-nested");
    h.model.script(runId, [{ toolCalls: [{ id: "m1", name: "sub-manager", arguments: { prompt: `${runId} manage` } }] }, { text: "managed" }]);
    h.model.script(`${runId} manage`, [{ toolCalls: [{ id: "r1", name: "sub-researcher", arguments: { prompt: `${runId} ask` } }] }, { text: "research done" }]);
    h.model.script(`${runId} ask`, [{ toolCalls: [{ name: "askBoss", arguments: {} }] }, { text: "boss said yes" }]);
    const ack = await agents.run(lead, { prompt: runId, runId });
    const leaf = `${childId(runId, "m1")}/agent/r1`;
    expect(ack).toMatchObject({ status: "deferred", deferralId: expect.stringContaining(leaf) });
    const { deferralId } = ack as { deferralId: string };
    expect(await agents.handle(childId(runId, "m1")).settled()).toEqual(ack);
    expect((await agents.deferrals.list({ status: "deferred" })).deferrals.filter((d) => d.deferralId === deferralId)).toEqual([expect.objectContaining({ runId: leaf })]);
    const resumed = await agents.resume({ token: tokens.get(deferralId)!, payload: { ok: true } });
    expect(resumed).toMatchObject({ status: "resumed", outcome: { status: "completed", result: { text: "managed" } } });
    expect(toolResults((await agents.listMessages({ runId: childId(runId, "m1") })).messages)).toEqual(["boss said yes"]);
  });

  it("with a tool that needs approval parks its parent; the decision in the inbox runs the call once and both go on", async () => {
    const runId = uid("sub-gated");
    h.model.script(runId, [{ toolCalls: [{ id: "p1", name: "sub-researcher", arguments: { prompt: `${runId} pay` } }] }, { text: "Paid through the researcher." }]);
    h.model.script(`${runId} pay`, [{ toolCalls: [{ name: "pay", arguments: { amount: 5 } }] }, { text: "paid 5" }]);
    const ack = await agents.run(lead, { prompt: runId, runId });
    expect(ack).toMatchObject({ status: "deferred" });
    const { deferralId } = ack as { deferralId: string };
    const request = await agents.approvals.get({ approvalId: deferralId });
    expect(request).toMatchObject({ kind: "approval", runId: childId(runId, "p1"), calls: [{ toolName: "pay" }] });
    expect(paid).not.toContain(childId(runId, "p1"));
    const decided = await agents.approvals.decide({ approvalId: deferralId, decisions: [{ toolCallId: request.calls[0]!.toolCallId, approved: true }] });
    expect(decided).toMatchObject({ status: "resumed", outcome: { status: "completed", result: { text: "Paid through the researcher." } } });
    expect(paid.filter((id) => id === childId(runId, "p1"))).toHaveLength(1);
  });

  it("that fails or runs out of its share of turns is told to the parent's model, and the parent goes on", async () => {
    const runId = uid("sub-fails");
    h.model.script(runId, [
      { toolCalls: [{ id: "f1", name: "sub-researcher", arguments: { prompt: `${runId} fail` } }, { id: "f3", name: "sub-rater", arguments: { nope: 1 } }] },
      { text: "handled" },
    ]);
    h.model.script(`${runId} fail`, [{ errors: [400] }]);
    await completed(agents.run(lead, { prompt: runId, runId }));
    const [failed, malformed] = toolResults((await agents.listMessages({ runId })).messages);
    expect(failed).toMatch(/^Error: the agent "sub-researcher" did not answer: \[AI1003\]/);
    expect(malformed).toBe('Error: call the agent "sub-rater" with {"prompt": "<the task>"}.');

    // Turns: the lead has 8; after its first it gives each of two children (8 - 1 - 1) / 2 = 3.
    const greedy = uid("sub-budget");
    h.model.script(greedy, [
      { toolCalls: [{ id: "g1", name: "sub-researcher", arguments: { prompt: `${greedy} loop` } }, { id: "g2", name: "sub-rater", arguments: { prompt: `${greedy} rate` } }] },
      { text: "over budget, still answering" },
    ]);
    h.model.respond(`${greedy} loop`, () => ({ toolCalls: [{ name: "lookup", arguments: { topic: "more" } }] }));
    h.model.script(`${greedy} rate`, [{ text: JSON.stringify({ score: 1 }) }]);
    const result = await completed(agents.run(lead, { prompt: greedy, runId: greedy }));
    expect(toolResults((await agents.listMessages({ runId: greedy })).messages)[0]).toMatch(/\[AI1004\] The agent used all 3 of its turns/);
    expect(result.turnsUsed).toBe(1 + 3 + 1 + 1);
  });

  it("that never answers times out on its own clock; the parent's model hears AI1003 and the parent goes on", async () => {
    const silent = defineAgent({ id: "sub-silent", model: "gpt-4.1-mini", system: "You think forever.", timeouts: { call: "1s" }, maxTurns: 2 });
    const waiter = defineAgent({ id: "sub-waiter", model: "gpt-4.1-mini", system: "You wait.", agents: [silent], maxTurns: 4 });
    const { agents: impatient } = await h.worker([waiter], { threads: { modelMaxAttempts: 1 } });
    const runId = uid("sub-silent");
    const never = h.model.hold();
    h.model.script(runId, [{ toolCalls: [{ id: "s1", name: "sub-silent", arguments: { prompt: `${runId} think` } }] }, { text: "it never answered" }]);
    h.model.script(`${runId} think`, [{ text: "too late", hold: never }]);
    const result = await completed(impatient.run(waiter, { prompt: runId, runId }));
    expect(result.text).toBe("it never answered");
    expect(toolResults((await impatient.listMessages({ runId })).messages)[0]).toMatch(/^Error: the agent "sub-silent" did not answer: \[AI1003\]/);
    never.release();
  });

  it("is cancelled with its parent, and the parent's AI1005 reports the spend of both", async () => {
    const runId = uid("sub-cancel");
    const hold = h.model.hold();
    h.model.script(runId, [{ toolCalls: [{ id: "k1", name: "sub-researcher", arguments: { prompt: `${runId} slow` } }] }]);
    h.model.script(`${runId} slow`, [{ toolCalls: [{ name: "lookup", arguments: { topic: "x" } }], usage: { promptTokens: 10, completionTokens: 5 } }, { text: "never", hold }]);
    const handle = await agents.start(lead, { prompt: runId, runId });
    await hold.reached;
    await agents.cancel({ runId, reason: "enough" });
    const err = await handle.result().catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "AI1005" });
    const fields = (err as { fields: { turnsUsed: number; usage: { promptTokens: number } } }).fields;
    // The lead's one turn and the child's first (10 prompt tokens among them) are in the lead's spend.
    expect(fields.turnsUsed).toBeGreaterThanOrEqual(2);
    expect(fields.usage.promptTokens).toBeGreaterThanOrEqual(10);
    await expect(agents.result({ runId: childId(runId, "k1") })).rejects.toMatchObject({ code: "AI1005" });
    hold.release();
  });
});

describe("ctx.dispatch", () => {
  const scout = defineAgent({ id: "dispatch-scout", model: "gpt-4.1-mini", system: "You scout.", maxTurns: 2 });
  /** Attempts of `research` per run: its first attempt fails after dispatching, when asked to. */
  const attempts = new Map<string, number>();
  const research = defineTool({
    name: "research",
    description: "Hands a task to the scout",
    input: z.object({ task: z.string(), flaky: z.boolean().optional() }),
    retry: { maxAttempts: 2, backoff: { strategy: "fixed", delay: 1 } },
    handler: async ({ task, flaky }, ctx) => {
      const answer = await ctx.dispatch(scout, { prompt: task });
      const attempt = (attempts.get(ctx.runId) ?? 0) + 1;
      attempts.set(ctx.runId, attempt);
      if (flaky && attempt === 1) throw new Error("lost the answer on the way back");
      return answer.status === "completed" ? answer.text : JSON.stringify(answer);
    },
  });
  const desk = defineAgent({ id: "dispatch-desk", model: "gpt-4.1-mini", system: "You dispatch.", tools: [research], maxTurns: 5 });
  let desks: AgentClient;
  beforeAll(async () => {
    ({ agents: desks } = await h.worker([desk, scout], { deferral: { secret: SECRET } }));
  });

  it("gives a call id the model reuses in a later turn a run of its own: each call reads its own task's answer", async () => {
    const runId = uid("dispatch-reuse");
    h.model.script(runId, [
      { toolCalls: [{ id: "call_0", name: "research", arguments: { task: `${runId} first task` } }] },
      { toolCalls: [{ id: "call_0", name: "research", arguments: { task: `${runId} second task` } }] },
      { text: "both researched" },
    ]);
    h.model.script(`${runId} first task`, [{ text: "first answer" }]);
    h.model.script(`${runId} second task`, [{ text: "second answer" }]);
    await completed(desks.run(desk, { prompt: runId, runId }));
    expect(toolResults((await desks.listMessages({ runId })).messages)).toEqual(["first answer", "second answer"]);
    expect(await desks.result({ runId: `${runId}/call_0#2/dispatch-scout` })).toMatchObject({ text: "second answer" });
  });

  it("finds its own run again when the call is retried: the task is sent once", async () => {
    const runId = uid("dispatch-retry");
    h.model.script(runId, [{ toolCalls: [{ id: "r1", name: "research", arguments: { task: `${runId} task`, flaky: true } }] }, { text: "researched" }]);
    h.model.script(`${runId} task`, [{ text: "the answer" }]);
    await completed(desks.run(desk, { prompt: runId, runId }));
    expect(attempts.get(runId)).toBe(2);
    expect(toolResults((await desks.listMessages({ runId })).messages)).toEqual(["the answer"]);
    expect(h.model.requests.filter((r) => r.conversation === `${runId} task`)).toHaveLength(1);
  });
});

describe("a forged sub-agent signal", () => {
  it("is dropped: only a sub-agent running now is heard, and a malformed message never fails a task", async () => {
    const runId = uid("sub-forged");
    const hold = h.model.hold();
    h.model.script(runId, [{ text: "unmoved", hold }]);
    const handle = await agents.start(lead, { prompt: runId, runId });
    await hold.reached;
    const wf = agents.workflowHandle(runId);
    const forged = { agentId: "sub-researcher", deferralId: `dfr:1:${runId}/agent/nobody`, status: "deferred", expiresAt: "2030-01-01T00:00:00.000Z" };
    for (const message of [forged, { ...forged, deferralId: `dfr:1:${runId}` }, null, "junk", { ...forged, status: "hijacked" }, { ...forged, expiresAt: "soon" }, { ...forged, schema: "x" }]) {
      await wf.signal(subAgentDeferralSignal, message as never);
    }
    // What a duplicate resume asks: junk is refused as malformed, an unknown or inherited id reads nothing.
    await expect(wf.query(subAgentOutcomeQuery, { id: 1 } as never)).rejects.toThrow(/AI1012/);
    for (const id of [forged.deferralId, "__proto__", "x".repeat(10_000)]) expect(await wf.query(subAgentOutcomeQuery, id)).toBeNull();
    hold.release();
    expect(await handle.settled()).toMatchObject({ status: "completed", text: "unmoved" });
    expect((await agents.deferrals.list({ status: "deferred" })).deferrals.filter((d) => d.runId === runId)).toEqual([]);
    expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
  });
});
