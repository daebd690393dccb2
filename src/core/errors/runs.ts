/** Errors of agent runs and the reads and messages sent to them (AI1012 and AI1015 reach threads too): a model call that failed for good, a cancelled, terminated or unknown run, a refused caller, a dispatched sub-run. */
import type { Usage } from "../messages.js";
import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface ModelCallFailedFields {
  /** HTTP status when the provider answered, absent for network errors. */
  status?: number;
  detail: string;
}

/** AI1003: the model provider refused the call for a reason retrying cannot fix. */
export class ModelCallFailedError extends DurableAgentsError<ModelCallFailedFields> {
  static readonly code = ErrorCode.ModelCallFailed;
  readonly code = ErrorCode.ModelCallFailed;
  constructor(fields: ModelCallFailedFields) {
    super(`[AI1003] The model call failed${fields.status ? ` with HTTP ${fields.status}` : ""}: ${fields.detail.replace(/\.$/, "")}. ${whatToCheck(fields.status)}`, fields);
  }
}

/** What the status says to look at: a refusal of the request as sent points at its message, not at the model name. */
function whatToCheck(status: number | undefined): string {
  switch (status) {
    case 401:
    case 403:
      return "Check the API key the worker was given, and that it may use this model.";
    case 404:
      return "Check the model name and base URL the worker was given.";
    case 400:
    case 422:
      return "The provider refused the request as it was sent: its message above says why.";
    default:
      return "The provider kept failing (out, throttling or unreachable): check the base URL the worker was given and the provider's status, or give the agent fallbackModels.";
  }
}

export type RunCancelledFields = { reason: string; turnsUsed: number; usage: Usage };

/** AI1005: The run was cancelled; carries the turns completed and the whole run's token usage. */
export class RunCancelledError extends DurableAgentsError<RunCancelledFields> {
  static readonly code = ErrorCode.RunCancelled;
  readonly code = ErrorCode.RunCancelled;
  constructor(f: RunCancelledFields) {
    super(
      `[AI1005] The run was cancelled (${f.reason}) after ${f.turnsUsed} turns and ${f.usage.totalTokens} tokens.`,
      f,
    );
  }
}

export interface RunNotFoundFields {
  runId: string;
}

/** AI1010: no run with that id exists on the server (wrong id, namespace, or retention passed). */
export class RunNotFoundError extends DurableAgentsError<RunNotFoundFields> {
  static readonly code = ErrorCode.RunNotFound;
  readonly code = ErrorCode.RunNotFound;
  constructor(fields: RunNotFoundFields) {
    super(`[AI1010] No run "${fields.runId}" exists in this namespace. Check the id and the namespace.`, fields);
  }
}

export type DispatchRefusedFields = { agentId: string; restored: boolean; reason: string };

/** AI1011: a tool dispatched an agent whose `authorize` refused the run's principal. */
export class DispatchRefusedError extends DurableAgentsError<DispatchRefusedFields> {
  static readonly code = ErrorCode.DispatchRefused;
  readonly code = ErrorCode.DispatchRefused;
  constructor(f: DispatchRefusedFields) {
    super(
      f.restored
        ? `[AI1011] Agent "${f.agentId}" refuses the run's principal: it was restored from storage after a resume and not re-verified (${f.reason}). Resume with reverify: <the live, verified principal> to re-verify it.`
        : `[AI1011] Agent "${f.agentId}" refused the run's principal: ${f.reason}.`,
      f,
    );
  }
}

export interface MessageMalformedFields {
  /** The update or query, e.g. `durable-agents.cancel`. */
  request: string;
  problem: string;
}

/**
 * AI1012: an update or query argument of the wrong shape. The clients never send one; a raw
 * Temporal client can, and the workflow refuses it (an update in its validator, so it leaves
 * no history) instead of failing its workflow task on it. A run's or thread's start input
 * of a version the worker does not know fails that workflow with it, before it does anything.
 */
export class MessageMalformedError extends DurableAgentsError<MessageMalformedFields> {
  static readonly code = ErrorCode.MessageMalformed;
  readonly code = ErrorCode.MessageMalformed;
  constructor(fields: MessageMalformedFields) {
    super(`[AI1012] Malformed ${fields.request} request: ${fields.problem}`, fields);
  }
}

export type RunUnauthorizedFields = {
  /** The operation refused, e.g. `"run.cancel"` or `"deferral.get"`. */
  operation: string;
  runId: string;
  /** Set for the deferral operations. */
  deferralId?: string;
  /** What the hook gave instead of `true`. */
  returned: string;
};

/** AI1013: the AgentClient's authorize hook did not return exactly `true` for a run or deferral operation; nothing was read or changed. */
export class RunUnauthorizedError extends DurableAgentsError<RunUnauthorizedFields> {
  static readonly code = ErrorCode.RunUnauthorized;
  readonly code = ErrorCode.RunUnauthorized;
  constructor(f: RunUnauthorizedFields) {
    const subject = f.deferralId !== undefined ? `deferral "${clip(f.deferralId)}"` : `run "${clip(f.runId)}"`;
    super(
      `[AI1013] ${f.operation} of ${subject} refused: the authorize hook returned ${f.returned}, not true. Nothing was read or changed; call again as a principal the hook allows.`,
      f,
    );
  }
}

// The fields keep the whole id; the message stays readable whatever id a caller sent.
const clip = (id: string) => (id.length > 200 ? `${id.slice(0, 200)}…` : id);

export interface RunTerminatedFields {
  runId: string;
  /** How Temporal closed it: `terminated` (an operator, or the server for history or payload size) or `timed-out`. */
  closedAs: "terminated" | "timed-out";
  /** The reason recorded with the termination, when there is one. */
  reason?: string;
}

/**
 * AI1014: Temporal closed the run before it finished: terminated (by an operator, or by the
 * server when its history or a payload grew past the limits) or timed out. It has no
 * result and cannot be resumed.
 */
export class RunTerminatedError extends DurableAgentsError<RunTerminatedFields> {
  static readonly code = ErrorCode.RunTerminated;
  readonly code = ErrorCode.RunTerminated;
  constructor(f: RunTerminatedFields) {
    const how =
      f.closedAs === "timed-out"
        ? "timed out (its Temporal execution timeout passed)"
        : `was terminated by Temporal${f.reason ? ` (reason: ${f.reason})` : ""}: by an operator, or by the server when its history or a payload grew past the limits`;
    super(`[AI1014] The run "${f.runId}" ${how}. It will not finish and cannot be resumed; start a new run.`, f);
  }
}

export interface WorkerUnavailableFields {
  /** The task queue the workflow's tasks go to. */
  taskQueue: string;
  /** The workflow (run or thread id) whose state was read. */
  workflowId: string;
  /** How long the read waited: the client's `queryTimeout`, a few times over when workers poll. */
  waitedMs: number;
  /**
   * Workers the server saw polling the task queue lately: 0 means none runs. Absent when
   * the server did not say in time either (it, or the workers, are overloaded).
   */
  pollers?: number;
}

/**
 * AI1015: A read that only a worker can answer (a query of a run's or thread's state, a
 * deferral record) got no answer in time: no worker polls the task queue, or the ones that
 * do were too busy. Nothing was changed.
 */
export class WorkerUnavailableError extends DurableAgentsError<WorkerUnavailableFields> {
  static readonly code = ErrorCode.WorkerUnavailable;
  readonly code = ErrorCode.WorkerUnavailable;
  constructor(f: WorkerUnavailableFields) {
    const why =
      f.pollers === 0
        ? "no worker polls it. Start a worker on that task queue (createAgentWorker), then try again"
        : f.pollers === undefined
          ? "the Temporal server did not say in time whether a worker polls it, so the server or the workers are overloaded. Try again, or raise the client's queryTimeout"
          : `${f.pollers} worker(s) polled it lately but none answered: they are busy or stuck, or stopped a moment ago. Try again, or raise the client's queryTimeout`;
    super(`[AI1015] No worker answered on task queue "${f.taskQueue}" within ${f.waitedMs} ms (reading "${f.workflowId}"): ${why}.`, f);
  }
}

export type DispatchConflictFields = { agentId: string; subRunId: string };

/**
 * AI1019: `ctx.dispatch()` found a run under the id of the sub-run it starts that carries no
 * proof of having been started by this tool call (someone started it beforehand, or an
 * earlier call reused the id). Its answer is never read as this call's.
 */
export class DispatchConflictError extends DurableAgentsError<DispatchConflictFields> {
  static readonly code = ErrorCode.DispatchConflict;
  readonly code = ErrorCode.DispatchConflict;
  constructor(f: DispatchConflictFields) {
    super(
      `[AI1019] ctx.dispatch() of agent "${f.agentId}" found a run under its sub-run id "${f.subRunId}" that this tool call did not start, so its answer is not read and the task was not sent. Sub-run ids are <run>/<tool call>/<agent>: let no caller start runs under another run's id (refuse run.start for ids with "/" in your authorize hook), and dispatch again from a new tool call.`,
      f,
    );
  }
}

export interface OutputInvalidFields {
  agentId: string;
  /** What was wrong with the last answer: not JSON, or the schema's first issues. */
  problem: string;
  /** Answers the model gave in the call, the corrections included. */
  answers: number;
}

/**
 * AI1071: the agent's final answer must match its `output` schema, and the model's did not,
 * even after being told what was wrong `outputRetries` times.
 */
export class OutputInvalidError extends DurableAgentsError<OutputInvalidFields> {
  static readonly code = ErrorCode.OutputInvalid;
  readonly code = ErrorCode.OutputInvalid;
  constructor(fields: OutputInvalidFields) {
    super(
      `[AI1071] Agent "${fields.agentId}" answered ${fields.answers} time(s) without matching its output schema: ${fields.problem}. ` +
        "Loosen the schema, describe the fields in the system prompt, raise outputRetries, or use a model that supports structured output.",
      fields,
    );
  }
}
