/**
 * An agent step's input and answer as Temporal stores them: the workflow leaves out what
 * the activity can tell from its own task, the activity leaves out what the workflow
 * knows, and each side gets back exactly what the other meant: otherwise a tool would run
 * for the wrong workflow, a sub-run would go to the wrong queue, or a deferral would get
 * an id no token names.
 */
import { describe, expect, it } from "vitest";
import type { AgentModelCallInput, ModelCallOutput, RunToolCall, ThreadToolCall } from "../../src/core/contracts.js";
import { deferralIdOf } from "../../src/core/deferral-id.js";
import { RUN_TRANSCRIPT_BYTES, STEP_RESULT_BYTES, THREAD_TRANSCRIPT_BYTES } from "../../src/core/transcript-budget.js";
import {
  fillModelAnswer,
  fillModelCall,
  fillToolAnswer,
  fillToolCall,
  scheduledDeferralId,
  slimModelAnswer,
  slimModelCall,
  slimToolAnswer,
  slimToolCall,
  type StepTask,
} from "../../src/core/step-wire.js";

const task: StepTask = { workflowId: "run-7f1c", runId: "0193a0b2-run", taskQueue: "agents" };
const toolCall = { id: "call_1", type: "function" as const, function: { name: "pay", arguments: '{"amount":5}' } };

const runTool: RunToolCall = {
  host: "run",
  agentId: "payer",
  workflowId: task.workflowId,
  taskQueue: task.taskQueue,
  toolCall,
  deferralId: deferralIdOf(task.workflowId, 3),
  restored: false,
  maxResultBytes: STEP_RESULT_BYTES,
};

const modelCall: AgentModelCallInput = {
  host: "run",
  agentId: "payer",
  workflowId: task.workflowId,
  transcriptId: task.runId,
  epoch: 0,
  baseLength: 4,
  delta: [{ role: "tool", tool_call_id: "call_1", content: "" }],
  restored: false,
  room: { leftBytes: 8_000_000, limitBytes: RUN_TRANSCRIPT_BYTES },
  gate: { deferralId: deferralIdOf(task.workflowId, 3) },
};

const jsonLength = (value: unknown) => JSON.stringify(value).length;

describe("a step's input as scheduled", () => {
  it("leaves out what the activity's own task says, and the activity reads back the same input", () => {
    const wire = slimToolCall(runTool, task);
    expect(wire).toEqual({ agentId: "payer", toolCall, deferralSeq: 3 });
    expect(fillToolCall(wire, task)).toEqual({ ...runTool, restored: undefined, maxResultBytes: undefined });

    const model = slimModelCall(modelCall, task);
    expect(model).not.toHaveProperty("workflowId");
    expect(model).not.toHaveProperty("transcriptId");
    expect(jsonLength(model)).toBeLessThan(jsonLength(modelCall) * 0.6);
    expect(fillModelCall(model, task)).toEqual({ ...modelCall, restored: undefined });
  });

  it("keeps every field that differs from the task or its default", () => {
    // A tool on its own queue (a work pool) still learns the host's queue; a run that
    // continued as new keeps its transcript id; a thread says so; a resumed principal stays restored.
    const onPool = { workflowId: task.workflowId, runId: "0193a0b2-next", taskQueue: "pool" };
    const restored: RunToolCall = { ...runTool, restored: true, maxResultBytes: 4096, firstRunId: "0193a0b2-first" };
    expect(fillToolCall(slimToolCall(restored, onPool), onPool)).toEqual(restored);

    const thread: ThreadToolCall = { host: "thread", agentId: "payer", workflowId: "thread-1", taskQueue: "agents", toolCall, start: true };
    expect(fillToolCall(slimToolCall(thread, task), task)).toEqual(thread);

    const threadModel: AgentModelCallInput = {
      ...modelCall,
      host: "thread",
      workflowId: "thread-1",
      transcriptId: "first-run",
      epoch: 2,
      restored: true,
      room: { leftBytes: 10, limitBytes: THREAD_TRANSCRIPT_BYTES },
      gate: { deferralId: deferralIdOf("thread-1", 1), firstRunId: "first-run" },
    };
    expect(fillModelCall(slimModelCall(threadModel, task), task)).toEqual(threadModel);
    const thread2 = { ...threadModel, room: { leftBytes: 10, limitBytes: 12345 } };
    expect(fillModelCall(slimModelCall(thread2, task), task)).toEqual(thread2);
  });

  it("names a deferral id that is not this workflow's in full", () => {
    const foreign: RunToolCall = { ...runTool, deferralId: "dfr:3:another-run" };
    const wire = slimToolCall(foreign, task);
    expect(wire).toMatchObject({ deferralId: "dfr:3:another-run" });
    expect(fillToolCall(wire, task)).toMatchObject({ deferralId: "dfr:3:another-run" });
    // An id with leading zeros would not be rebuilt from its seq: it travels whole.
    const padded: RunToolCall = { ...runTool, deferralId: `dfr:03:${task.workflowId}` };
    expect(fillToolCall(slimToolCall(padded, task), task)).toMatchObject({ deferralId: padded.deferralId });
  });

  it("lets a reader of the history find the deferral a scheduled call names, whole or by its seq", () => {
    expect(scheduledDeferralId(slimToolCall(runTool, task), task.workflowId)).toBe(runTool.deferralId);
    expect(scheduledDeferralId(runTool, "anything")).toBe(runTool.deferralId);
    expect(scheduledDeferralId({}, task.workflowId)).toBeUndefined();
    expect(scheduledDeferralId({ deferralSeq: "3" }, task.workflowId)).toBeUndefined();
  });

  it("takes a whole input, as older workflows schedule it, unchanged", () => {
    const whole = { ...runTool, restored: true };
    expect(fillToolCall(whole, { workflowId: "x", runId: "y", taskQueue: "z" })).toEqual(whole);
    expect(fillModelCall(modelCall, { workflowId: "x", runId: "y", taskQueue: "z" })).toEqual(modelCall);
  });
});

describe("a step's answer as recorded", () => {
  it("drops the role, a null content and a total that is the sum, and the workflow reads the same answer", () => {
    const answer: ModelCallOutput = {
      message: { role: "assistant", content: null, tool_calls: [toolCall] },
      usage: { promptTokens: 100, completionTokens: 10, totalTokens: 110 },
    };
    const wire = slimModelAnswer(answer);
    expect(wire).toEqual({ message: { tool_calls: [toolCall] }, usage: { promptTokens: 100, completionTokens: 10 } });
    expect(fillModelAnswer(wire)).toEqual(answer);

    const text: ModelCallOutput = { message: { role: "assistant", content: "" }, usage: { promptTokens: 1, completionTokens: 2, totalTokens: 9 }, output: { ok: true } };
    expect(fillModelAnswer(slimModelAnswer(text))).toEqual(text);
  });

  it("drops isError only from a result that is no error", () => {
    expect(slimToolAnswer({ content: "done", isError: false })).toEqual({ content: "done" });
    expect(fillToolAnswer(slimToolAnswer({ content: "done", isError: false }))).toEqual({ content: "done", isError: false });
    expect(fillToolAnswer(slimToolAnswer({ content: "boom", isError: true }))).toEqual({ content: "boom", isError: true });
    const deferred = { deferred: { ttlMs: 1000, meta: {} } };
    expect(fillToolAnswer(slimToolAnswer(deferred))).toEqual(deferred);
    expect(fillToolAnswer(slimToolAnswer({ started: true }))).toEqual({ started: true });
  });
});
