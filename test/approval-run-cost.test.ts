/**
 * What an approval run costs (issue 49: within 1 of the floor for a single decision): a run
 * that looks an account up, asks a person, is resumed, pays and answers bills 13 actions,
 * the floor's 12 (a bare workflow doing the same calls, listed while it waits, with its
 * expiry timer) and the inbox's row in the run's memo. The agent is described by the run's
 * first model call, not by a local activity of its own (its marker was one more action). An
 * agent whose model calls are scheduled otherwise than the defaults (its timeouts) costs the
 * same when the run is started with its definition; started by id, its first call learns
 * that and is made again, as it schedules them: one more activity, no model asked twice.
 * Counted by the server's own `action` counter, on a server of this file's own.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool, type AgentClient, type AgentDefinition } from "../src/index.js";
import type { AgentStack } from "./agent-stack.js";
import { countingStack, type ActionCounter } from "./counting-stack.js";
import { SECRET, uid } from "./harness.js";

let stack: AgentStack;
let counter: ActionCounter;
const tokens = new Map<string, string>();

const lookup = defineTool({ name: "lookup", description: "Looks an account up", input: z.object({ account: z.string() }), handler: () => "acme: 250 due" });
const askApproval = defineTool({
  name: "askApproval",
  description: "Ask a human to approve a payout",
  input: z.object({ amount: z.number() }),
  handler: (_input, ctx) => {
    tokens.set(ctx.runId, ctx.deferral.token);
    return ctx.defer({ schema: z.object({ approved: z.boolean() }) });
  },
});
const pay = defineTool({ name: "pay", description: "Pays", input: z.object({ amount: z.number() }), handler: ({ amount }) => `paid ${amount}` });
const options = { model: "gpt-4.1-mini", system: "You look up, ask, pay.", tools: [lookup, askApproval, pay], maxTurns: 6 };
const plain = defineAgent({ ...options, id: "approval-run-cost" });
/** Its model calls are scheduled with timeouts of its own: a run's first call, sent before it is described, must be scheduled so too. */
const patient = defineAgent({ ...options, id: "approval-run-cost-patient", timeouts: { call: "2m", heartbeat: "20s" } });

countingStack((s, c) => ((stack = s), (counter = c)));

/** Runs lookup → askApproval (parks) → resume → pay → answer, started with `start` (the definition or its id); its actions and model requests. */
async function approvalRun(agents: AgentClient, start: AgentDefinition | string) {
  const runId = uid("approval-run-cost");
  stack.model.script(runId, [
    { toolCalls: [{ name: "lookup", arguments: { account: "acme" } }] },
    { toolCalls: [{ name: "askApproval", arguments: { amount: 250 } }] },
    { toolCalls: [{ name: "pay", arguments: { amount: 250 } }] },
    { text: "Paid 250." },
  ]);
  const measured = await counter.measure(async () => {
    expect(await agents.run(start, { prompt: runId, runId })).toMatchObject({ status: "deferred" });
    const resumed = await agents.resume({ token: tokens.get(runId)!, payload: { approved: true } });
    expect(resumed.outcome).toMatchObject({ status: "completed", result: { text: "Paid 250." } });
  });
  return { ...measured, modelRequests: stack.model.requests.filter((r) => r.conversation === runId).length };
}

describe("an approval run's billed actions", () => {
  it("costs 13, the floor and the inbox row: the agent is described by its first model call, no local activity's marker", async () => {
    const { agents } = await stack.worker([plain], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } });
    const run = await approvalRun(agents, plain);
    expect(run.byOperation).toEqual({
      StartWorkflowExecution: 1,
      // Four model calls, three tools.
      command_ScheduleActivityTask: 7,
      // Listed while it waits, then cleared.
      command_UpsertWorkflowSearchAttributes: 2,
      // The inbox's row.
      command_ModifyWorkflowProperties: 1,
      // Its expiry.
      command_StartTimer: 1,
      message_UpdateWorkflowExecution_Acceptance: 1,
    });
    expect(run.total).toBe(13);
    expect(run.modelRequests).toBe(4);
  });

  it("costs 13 for an agent with timeouts of its own started with its definition; started by id, its first call is made again as it schedules them, the model asked once", async () => {
    const { agents } = await stack.worker([patient], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } });
    const byDefinition = await approvalRun(agents, patient);
    expect(byDefinition.total).toBe(13);
    expect(byDefinition.modelRequests).toBe(4);

    const byId = await approvalRun(agents, patient.id);
    expect(byId.byOperation).toMatchObject({ command_ScheduleActivityTask: 8 });
    expect(byId.byOperation.command_BatchMarkers).toBeUndefined();
    expect(byId.total).toBe(14);
    expect(byId.modelRequests).toBe(4);
  });
});
