import type { AgentModelCallInput, AgentStepActivities, AgentToolCallInput, AgentToolCallOutput, ModelCallOutput } from "./contracts.js";
import type { Usage } from "./messages.js";
import { runStepKey, type StepTraceRequest } from "./step-trace.js";
import { deferralIdOf, parseDeferralId } from "./deferral-id.js";
import { MAX_PAYLOAD_BYTES } from "./payload-size.js";
import { RUN_TRANSCRIPT_BYTES, THREAD_TRANSCRIPT_BYTES } from "./transcript-budget.js";

/**
 * How an agent step's input travels to its activity. Temporal stores every scheduled
 * activity's input in the history, so the workflow leaves out what the activity can read
 * from its own task (the workflow's id, its run id, the queue it runs on) or what holds
 * its default, and the activity puts it back before anything reads the input. In a
 * tool loop these fields were about a tenth of each turn's history bytes.
 *
 * Either side accepts the full input too: a full input is what older workflows schedule,
 * and filling it changes nothing. Sandbox-safe.
 */

/** What the activity knows of the task it runs: `Context.current().info`, or the workflow's own info. */
export interface StepTask {
  workflowId: string;
  runId: string;
  /** The task queue the activity runs on (for a workflow: the queue the call is scheduled on). */
  taskQueue: string;
}

type Gate = NonNullable<AgentModelCallInput["gate"]>;

/** A model call's input as scheduled: see the module comment. */
export type ModelCallWire = Omit<AgentModelCallInput, "host" | "workflowId" | "epoch" | "transcriptId" | "room" | "gate" | "describe"> & {
  /** A new run's first step is `"first"`: its activity names it from its own task. */
  describe?: { trace?: StepTraceRequest | "first" };
  host?: AgentModelCallInput["host"];
  workflowId?: string;
  epoch?: number;
  transcriptId?: string;
  room?: { leftBytes: number; limitBytes?: number };
  gate?: Omit<Gate, "deferralId"> & { deferralId?: string; deferralSeq?: number };
};

/** A tool call's input as scheduled: see the module comment. */
export type ToolCallWire = DistributiveWire<AgentToolCallInput>;
type DistributiveWire<T> = T extends AgentToolCallInput
  ? Omit<T, "host" | "workflowId" | "taskQueue" | "deferralId"> & { host?: T["host"]; workflowId?: string; taskQueue?: string; deferralId?: string; deferralSeq?: number }
  : never;

// A share of the transcript's room at least this large limits no result: a tool's own
// `maxResultBytes` is at most one payload.
const UNLIMITED_SHARE = MAX_PAYLOAD_BYTES;

/** The model call's input without what its activity can tell itself. */
export function slimModelCall(input: AgentModelCallInput, task: StepTask): ModelCallWire {
  const { host, workflowId, epoch, transcriptId, room, gate, restored, describe, ...rest } = input;
  const wire: ModelCallWire = { ...rest };
  if (describe) wire.describe = describe.trace && isFirstStep(describe.trace, task) ? { trace: "first" } : describe;
  if (host !== "run") wire.host = host;
  if (workflowId !== task.workflowId) wire.workflowId = workflowId;
  if (epoch !== 0) wire.epoch = epoch;
  if (transcriptId !== task.runId) wire.transcriptId = transcriptId;
  if (restored) wire.restored = restored;
  if (room) wire.room = room.limitBytes === transcriptLimit(input.host) ? { leftBytes: room.leftBytes } : room;
  if (gate) {
    const { deferralId, ...gateRest } = gate;
    const seq = ownSeq(deferralId, workflowId);
    wire.gate = seq === undefined ? gate : { ...gateRest, deferralSeq: seq };
  }
  return wire;
}

/** The model call's whole input, from what was scheduled and the activity's own task. */
export function fillModelCall(wire: ModelCallWire, task: StepTask): AgentModelCallInput {
  const { host = "run", workflowId = task.workflowId, epoch = 0, transcriptId = task.runId, room, gate, describe, ...rest } = wire;
  const input: AgentModelCallInput = { ...rest, host, workflowId, epoch, transcriptId };
  if (describe) input.describe = describe.trace === "first" ? { trace: firstStepOf(task) } : { ...(describe.trace ? { trace: describe.trace } : {}) };
  if (room) input.room = { leftBytes: room.leftBytes, limitBytes: room.limitBytes ?? transcriptLimit(host) };
  if (gate) {
    const { deferralSeq, deferralId, ...gateRest } = gate;
    input.gate = { ...gateRest, deferralId: deferralId ?? deferralIdOf(workflowId, deferralSeq ?? 0) };
  }
  return input;
}

/** A new run's first step, as its workflow's task names it (`RunTracing.firstStep`). */
function firstStepOf(task: StepTask): StepTraceRequest {
  return { host: "run", workflowId: task.workflowId, step: runStepKey(task.workflowId, task.runId, 1) };
}

function isFirstStep(trace: StepTraceRequest, task: StepTask): boolean {
  const first = firstStepOf(task);
  return Object.keys(trace).length === 3 && trace.host === first.host && trace.workflowId === first.workflowId && trace.step === first.step;
}

/** The tool call's input without what its activity can tell itself. */
export function slimToolCall(input: AgentToolCallInput, task: StepTask): ToolCallWire {
  const { host, workflowId, taskQueue, maxResultBytes, ...rest } = input;
  const wire = { ...rest } as ToolCallWire & { restored?: boolean; deferralId?: string; deferralSeq?: number };
  if (host !== "run") wire.host = host;
  if (workflowId !== task.workflowId) wire.workflowId = workflowId;
  if (taskQueue !== task.taskQueue) wire.taskQueue = taskQueue;
  if (maxResultBytes !== undefined && maxResultBytes < UNLIMITED_SHARE) wire.maxResultBytes = maxResultBytes;
  if ("restored" in wire && !wire.restored) delete wire.restored;
  if (input.host === "run") {
    const seq = ownSeq(input.deferralId, workflowId);
    if (seq !== undefined) {
      delete wire.deferralId;
      wire.deferralSeq = seq;
    }
  }
  return wire;
}

/** The tool call's whole input, from what was scheduled and the activity's own task. */
export function fillToolCall(wire: ToolCallWire, task: StepTask): AgentToolCallInput {
  const { host = "run", workflowId = task.workflowId, taskQueue = task.taskQueue, deferralSeq, ...rest } = wire as ToolCallWire & { deferralSeq?: number };
  const input = { ...rest, host, workflowId, taskQueue } as AgentToolCallInput;
  if (input.host === "run" && input.deferralId === undefined) input.deferralId = deferralIdOf(workflowId, deferralSeq ?? 0);
  return input;
}

/** A model call's answer as its activity returns it: `role`, a `null` content and a total that is the sum are left out. */
export type ModelAnswerWire = Omit<ModelCallOutput, "message" | "usage"> & {
  message: Omit<ModelCallOutput["message"], "role" | "content"> & { role?: "assistant"; content?: string | null };
  usage: Omit<Usage, "totalTokens"> & { totalTokens?: number };
};

/** A tool call's answer as its activity returns it: a result that is no error leaves `isError` out. */
export type ToolAnswerWire = AgentToolCallOutput | { content: string; isError?: boolean };

export function slimModelAnswer(out: ModelCallOutput): ModelAnswerWire {
  const { role: _role, content, ...message } = out.message;
  const { totalTokens, ...usage } = out.usage;
  return {
    ...out,
    message: content === null ? message : { ...message, content },
    usage: totalTokens === usage.promptTokens + usage.completionTokens ? usage : { ...usage, totalTokens },
  };
}

export function fillModelAnswer(wire: ModelAnswerWire): ModelCallOutput {
  const { message, usage } = wire;
  return {
    ...wire,
    message: { ...message, role: "assistant", content: message.content ?? null },
    usage: { ...usage, totalTokens: usage.totalTokens ?? usage.promptTokens + usage.completionTokens },
  };
}

export function slimToolAnswer(out: AgentToolCallOutput): ToolAnswerWire {
  if (!("content" in out) || out.isError) return out;
  const { isError: _isError, ...rest } = out;
  return rest;
}

export function fillToolAnswer<T extends AgentToolCallOutput>(wire: ToolAnswerWire): T {
  return ("content" in wire && wire.isError === undefined ? { ...wire, isError: false } : wire) as T;
}

/** The agent-step activities as the workflow schedules them and the worker registers them. */
export type WireStepActivities = Omit<AgentStepActivities, "callAgentModel" | "callAgentTool"> & {
  callAgentModel(input: ModelCallWire): Promise<ModelAnswerWire>;
  callAgentTool(input: ToolCallWire): Promise<ToolAnswerWire>;
};

/** The deferral id a scheduled tool call names (full or by its seq), as its activity reads it. */
export function scheduledDeferralId(wire: { deferralId?: unknown; deferralSeq?: unknown; workflowId?: unknown }, workflowId: string): unknown {
  if (wire.deferralId !== undefined) return wire.deferralId;
  if (typeof wire.deferralSeq !== "number") return undefined;
  return deferralIdOf(typeof wire.workflowId === "string" ? wire.workflowId : workflowId, wire.deferralSeq);
}

// What a run's or a thread's transcript may weigh: a room's limit is sent only when it differs.
function transcriptLimit(host: "run" | "thread"): number {
  return host === "run" ? RUN_TRANSCRIPT_BYTES : THREAD_TRANSCRIPT_BYTES;
}

/** The seq of a deferral id of this workflow, which the activity can rebuild the id from. */
function ownSeq(deferralId: string, workflowId: string): number | undefined {
  const parsed = parseDeferralId(deferralId);
  return parsed && parsed.runId === workflowId && deferralIdOf(workflowId, parsed.seq) === deferralId ? parsed.seq : undefined;
}
