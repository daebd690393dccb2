import type { z } from "zod";
import { InvalidDefinitionError } from "./errors/setup.js";
import type { DeferOptions, DeferSignal } from "./defer.js";
import type { Duration } from "@temporalio/common";
import type { JsonObject, JsonValue, Principal } from "./json.js";
import { plainJsonProblem } from "./json-check.js";
import { durationMs } from "./duration.js";
import type { AgentResult } from "./run-state.js";
import type { DeferredAck } from "./deferral-record.js";
import { isSchema } from "./schema.js";
import { resolveToolRetry, type ToolRetry } from "./tool-retry.js";
import { DEFAULT_TOOL_RESULT_BYTES, MAX_PAYLOAD_BYTES } from "./payload-size.js";

/** What every tool call sees, in an agent run or a thread turn: the call, its attempt, who it acts for. */
export interface ToolCallContext {
  /** The agent executing the call. */
  agentId: string;
  /** The model-assigned id of this tool call. */
  toolCallId: string;
  /**
   * Stable across activity retries and worker restarts: pass it to side-effecting
   * APIs (payments, emails, notifications) so a retried call is not applied twice.
   */
  idempotencyKey: string;
  /** Who the run or thread acts for, as given to `AgentClient.run()` or `createThread`. */
  principal: Principal | undefined;
  /** Fires when the run is cancelled, the thread stopped or deleted, or the call times out; pass it to fetch() and friends. */
  signal: AbortSignal;
  /** Which attempt of this call this is (1 on the first). */
  attempt: number;
}

/** What a tool handler can see and use while it runs inside an agent run (or a thread turn). */
export interface ToolContext extends ToolCallContext {
  /** The run (workflow id) this call belongs to. */
  runId: string;
  /**
   * The id the run's deferral will have if this call defers. Known before deferring, so a
   * notification can carry a working link. Every call of one batch reads the same id.
   */
  deferralId: string;
  /**
   * `token` resumes this call's deferral. Bound to this tool call: a sibling that loses
   * the deferral hands out a token that is refused (RC5055). Reading it without a deferral
   * configuration fails the call with RC5052.
   */
  deferral: {
    readonly token: string;
    /** The approval page's link for this token, when the worker has `deferral: { approvalUrl }` (the HTTP front door's `/approve`). */
    readonly url?: string;
  };
  /**
   * Parks the whole run until a resume (or the TTL). `return ctx.defer({...})` from the
   * handler; the resume payload becomes this call's result.
   */
  defer(options?: DeferOptions): DeferSignal;
  /** True after a resume: `principal` was restored from storage, not re-verified. */
  restored: boolean;
  /**
   * Runs another agent as a sub-run (on this worker's task queue) for the same principal
   * and waits until it settles. Its run id is `<runId>/<toolCallId>/<agentId>` (with
   * `#<n>` after the call id when the model reused it, and after the agent id for the n-th
   * dispatch of that agent by this call). Idempotent across retries of this call: the run
   * carries a proof that this call started it, and a run under that id without the proof
   * (started by someone else) is never read: the dispatch fails with AI1019. An agent that
   * declares `authorize` refuses a restored principal with AI1011.
   */
  dispatch(agent: { id: string } | string, input: { prompt: string }): Promise<AgentResult | DeferredAck>;
  /** Who resumed the run (in a thread: who approved this call); gains none of its authority. */
  resumedBy?: Principal;
  /** Set when the call belongs to a thread turn (then `runId` is the thread id too); threads cannot defer. */
  threadId?: string;
  /**
   * Tells the run's or thread's readers how the call is going (`{ done: 3, of: 10 }`, "crawling
   * page 4"): a `tool-progress` stream entry for `followUpdates`, the events route and
   * `useChat` (a `data-tool-progress` part). A preview, never stored: it travels on the
   * worker's stream transport only (no billed action, nothing in history), and is dropped
   * where there is none (deltas by signal, a turn sent with `stream: false`, a tool worker of
   * its own queue). Throttled: the first report goes at once, then at most one every
   * `PROGRESS_INTERVAL_MS` (250 ms), the latest winning; reports left when the call ends are
   * dropped (its result follows). `data` must be plain JSON (AI1001 otherwise) of at most
   * `MAX_PROGRESS_BYTES` (16 KiB; AI1016 otherwise): thrown here, and if the handler lets it
   * through, the model reads it as the tool's error.
   */
  progress(data: JsonValue): void;
}

export interface ToolOptions<I extends z.core.$ZodType, O> {
  /** Name the model calls the tool by: letters, digits, `_` and `-`, at most 64 characters. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** Schema of the arguments. Arguments the model gets wrong come back to it as a tool error. */
  input: I;
  /**
   * Does the work. The return value becomes the tool result (strings as-is, anything
   * else as JSON). A thrown error becomes a tool error the model can react to.
   */
  handler: (input: z.output<I>, ctx: ToolContext) => Promise<O> | O;
  /**
   * Retries a handler that throws before the model sees the error, durably (Temporal waits
   * the backoff between attempts). `true` means 3 attempts with exponential backoff
   * (250 ms ×2, at most 4 s, jittered). Applies in agent runs and thread turns alike.
   */
  retry?: ToolRetry;
  /**
   * Runs this tool's calls on their own task queue, served by
   * `createToolWorker({ taskQueue, concurrency })`: a work pool with its own concurrency
   * limit. Default: the agent's task queue. Applies in agent runs and thread turns alike.
   */
  queue?: string;
  /**
   * The most the result (or error) the model reads may weigh, as UTF-8 bytes of its JSON.
   * A larger one is cut to fit and ends with a note telling the model it was truncated and
   * how large it was; the run or turn goes on. Every result is recorded in Temporal's
   * history, whose payloads end at 2 MB. From 1,024 to `MAX_PAYLOAD_BYTES` (1.5 MiB);
   * default `DEFAULT_TOOL_RESULT_BYTES` (256 KiB).
   */
  maxResultBytes?: number;
  /**
   * The tool acts (pays, deletes, sends): no call runs before a person decides on it. When
   * the model calls it, the run (or the thread's turn) parks before the handler, whatever
   * the model emits, until a decision arrives: approved (maybe with edited input, checked
   * against `input`), or rejected (the model reads the reason and goes on). The calls of one
   * step that need a decision become one request, with one token and one link. `true`
   * always; a function is a policy that decides per call, from its parsed input and
   * `ApprovalContext` (who the run or thread acts for, which run or thread, which call):
   * `"allow"` (or `false`) runs it, `"ask"` (or `true`) asks a person, `{ deny: reason }`
   * runs nothing and tells the model why (no request, nothing parks). It runs on the worker
   * when the model answers, and again before the handler of a call it allowed: keep it a
   * function of what it is given. A policy that throws or answers anything else fails the
   * run (or the thread's turn) with AI1035. Needs the worker's `deferral: { secret }`.
   */
  needsApproval?: boolean | ((input: z.output<I>, ctx: ApprovalContext) => ApprovalPolicyAnswer | Promise<ApprovalPolicyAnswer>);
  /** How a call that needs approval is asked for. */
  approval?: ApprovalOptions<z.output<I>>;
}

/**
 * What a `needsApproval` policy answers for one call: `"allow"` runs it at once, `"ask"`
 * waits for a person's decision, `{ deny: reason }` runs nothing and the model reads the
 * reason (at most `MAX_DECISION_TEXT` characters are kept). `true` is `"ask"`, `false` is `"allow"`.
 */
export type ApprovalPolicyAnswer = "allow" | "ask" | { deny: string } | boolean;

/** What a `needsApproval` policy learns about the call, beside its parsed input. */
export interface ApprovalContext {
  agentId: string;
  /** The tool the call is for. */
  toolName: string;
  toolCallId: string;
  /** Who the run or thread acts for, as given to `AgentClient.run()` or `createThread`. */
  principal: Principal | undefined;
  /** Whether the call belongs to an agent run or a thread's turn. */
  host: "run" | "thread";
  /** The run, or the thread, the call belongs to. */
  runId: string;
  /** Set when the call belongs to a thread turn (the thread's id, as `runId`). */
  threadId?: string;
}

/** A request for decisions, as `approval.notify` gets it: everything a message to the approver needs. */
export interface ApprovalRequestInfo {
  /** The request's id (a deferral id): `agents.approvals.get({ approvalId })`, `decide({ approvalId, … })`. */
  approvalId: string;
  agentId: string;
  /** The run, or the thread, that waits. */
  runId: string;
  threadId?: string;
  /** The calls waiting for a decision, with their arguments as the model wrote them. */
  calls: Array<{ toolCallId: string; toolName: string; arguments: string; meta?: JsonObject }>;
  expiresAt: string;
  principal?: Principal;
  /** Decides the request (`agents.resume({ token, payload: { decisions } })`); bound to it, single use. */
  token: string;
  /** The approval page's link for the token, when the worker has `deferral: { approvalUrl }`. */
  url?: string;
  /**
   * Why the approvers are told now: `asked` when the request is made, `reminder` for each of
   * `approval.remind` (numbered in `reminder`), `escalated` once `approval.escalate` moved it
   * to other approvers (its `requires` then names them).
   */
  reason: "asked" | "reminder" | "escalated";
  /** Which reminder this is, from 1 in the order they come (with `reason: "reminder"`). */
  reminder?: number;
  /** The request's `meta.requires` now: after an escalation, the escalation's. */
  requires?: string[];
}

/** What `approval.notify` can use while it runs (an activity: at least once). */
export interface ApprovalNotifyContext {
  /** Stable across retries of this notification, distinct per request: pass it to the mailer. */
  idempotencyKey: string;
  signal: AbortSignal;
  attempt: number;
}

export interface ApprovalOptions<Input = unknown> {
  /** How long the request stays open. Default: the worker's `deferral.defaultTtl` (72h). The shortest of a request's calls applies. */
  ttl?: Duration;
  /**
   * What the `authorize` hook and the inbox need to route the request (required roles,
   * four-eyes …): plain JSON, kept on the record, never shown to the model. A request of
   * several calls carries their metas merged (`requires` lists joined).
   */
  meta?: JsonObject | ((input: Input) => JsonObject);
  /**
   * Tells a person there is something to decide: runs durably once the run has parked (an
   * activity, at least once, with an idempotency key), with the request, its token and link.
   * A failure is retried and then logged; it never fails the run. A request of several
   * tools' calls runs each tool's `notify` once, with the whole request.
   */
  notify?: (request: ApprovalRequestInfo, ctx: ApprovalNotifyContext) => Promise<void> | void;
  /**
   * What a person may answer in the tool's place (a decision `{ respond: result }`: the tool
   * never runs, the result is recorded as its own). A zod schema, like `input`: a response
   * that does not fit it is refused with RC5049 and the token stays usable. Without it, any
   * plain JSON result is taken (a string reaches the model as it is).
   */
  resultSchema?: z.core.$ZodType;
  /**
   * Reminds the approvers before the request expires: each a time before expiry (`["24h",
   * "1h"]`), at which `notify` (and `escalate.notify` once escalated) runs again with
   * `reason: "reminder"` and the reminder's number, unless someone decided. Each costs one
   * timer and one notify activity (docs/cost.md). Each must be shorter than `ttl`; one not
   * shorter than the request's TTL (the worker's default, without `ttl`) is not sent.
   */
  remind?: Duration[];
  /**
   * Moves an undecided request to other approvers `after` it was made: its `meta.requires`
   * becomes `requires` (the inbox's `requires` filter and the `authorize` hook then route it
   * to them), and they are told (`escalate.notify`, else `notify`, with `reason:
   * "escalated"`). The request keeps its expiry: give `ttl` room for them (`after` must be
   * shorter than `ttl`). A decision accepted before the escalation stands; one authorized
   * against the old `requires` that reaches the run after it is refused (AI1039).
   */
  escalate?: ApprovalEscalation;
}

/** Where an undecided request goes after a while (`approval.escalate`). */
export interface ApprovalEscalation {
  /** How long after the request was made it escalates (shorter than the request's TTL). */
  after: Duration;
  /** The request's `meta.requires` from then on: who may decide it now. */
  requires: string[];
  /** Tells the new approvers; without it the tool's `approval.notify` runs, with `reason: "escalated"`. */
  notify?: (request: ApprovalRequestInfo, ctx: ApprovalNotifyContext) => Promise<void> | void;
}

/** A tool an agent can call, typed from its zod input schema. */
export interface ToolDefinition<I extends z.core.$ZodType = z.core.$ZodType, O = unknown> extends ToolOptions<I, O> {
  readonly kind: "tool";
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Defines a tool. Throws AI1001 for a name the model APIs refuse or a missing schema. */
export function defineTool<I extends z.core.$ZodType, O>(options: ToolOptions<I, O>): ToolDefinition<I, O> {
  const subject = `tool "${String(options?.name)}"`;
  if (typeof options?.name !== "string" || !TOOL_NAME.test(options.name)) {
    throw new InvalidDefinitionError({ subject, problem: "name must match /^[a-zA-Z0-9_-]{1,64}$/" });
  }
  if (typeof options.description !== "string" || options.description.trim() === "") {
    throw new InvalidDefinitionError({ subject, problem: "description must be a non-empty string" });
  }
  // Duck-typed: `instanceof` refuses schemas from the user's own copy of zod (or zod/mini).
  if (!isSchema(options.input)) {
    throw new InvalidDefinitionError({ subject, problem: "input must be a zod schema" });
  }
  if (typeof options.handler !== "function") {
    throw new InvalidDefinitionError({ subject, problem: "handler must be a function" });
  }
  resolveToolRetry(options.retry, subject);
  if (options.queue !== undefined && (typeof options.queue !== "string" || options.queue.trim() === "")) {
    throw new InvalidDefinitionError({ subject, problem: "queue must be a non-empty task queue name" });
  }
  const max = options.maxResultBytes;
  if (max !== undefined && !(Number.isInteger(max) && max >= 1024 && max <= MAX_PAYLOAD_BYTES)) {
    throw new InvalidDefinitionError({ subject, problem: `maxResultBytes must be a whole number from 1024 to ${MAX_PAYLOAD_BYTES} (default ${DEFAULT_TOOL_RESULT_BYTES})` });
  }
  approvalOptionsProblem(options, subject);
  return { ...options, kind: "tool" };
}

/** AI1001 for `needsApproval` or `approval` of the wrong shape. */
function approvalOptionsProblem(options: ToolOptions<z.core.$ZodType, unknown>, subject: string): void {
  const bad = (problem: string) => new InvalidDefinitionError({ subject, problem });
  const { needsApproval, approval } = options;
  if (needsApproval !== undefined && typeof needsApproval !== "boolean" && typeof needsApproval !== "function") {
    throw bad("needsApproval must be true, false or a function of the call's input");
  }
  if (approval === undefined) return;
  if (typeof approval !== "object" || approval === null) throw bad("approval must be an object");
  const ttlMs = approval.ttl !== undefined ? durationMs(approval.ttl, `${subject} approval.ttl`) : undefined;
  approvalScheduleProblem(approval, ttlMs, subject, bad);
  const { meta, notify } = approval;
  if (meta !== undefined && typeof meta !== "function") {
    const problem = typeof meta === "object" && meta !== null && !Array.isArray(meta) ? plainJsonProblem(meta) : { path: "$", problem: "not an object" };
    if (problem) throw bad(`approval.meta must be a plain JSON object or a function of the input (${problem.path}: ${problem.problem})`);
  }
  if (notify !== undefined && typeof notify !== "function") throw bad("approval.notify must be a function");
  if (approval.resultSchema !== undefined && !isSchema(approval.resultSchema)) throw bad("approval.resultSchema must be a zod schema");
}

/** Most reminders one request may send: each is a timer and an activity. */
export const MAX_APPROVAL_REMINDERS = 10;

/** AI1001 for `approval.remind` or `approval.escalate` that could never happen as written. */
function approvalScheduleProblem(approval: ApprovalOptions, ttlMs: number | undefined, subject: string, bad: (problem: string) => Error): void {
  const { remind, escalate } = approval;
  if (remind !== undefined) {
    if (!Array.isArray(remind) || remind.length === 0 || remind.length > MAX_APPROVAL_REMINDERS) throw bad(`approval.remind must be a list of 1 to ${MAX_APPROVAL_REMINDERS} durations before expiry, like ["24h", "1h"]`);
    for (const before of remind) {
      const ms = durationMs(before, `${subject} approval.remind`, "1h");
      if (ttlMs !== undefined && ms >= ttlMs) throw bad(`approval.remind ${JSON.stringify(before)} is not before the request's expiry: each reminder must be shorter than approval.ttl`);
    }
  }
  if (escalate === undefined) return;
  if (typeof escalate !== "object" || escalate === null) throw bad("approval.escalate must be { after, requires, notify? }");
  const afterMs = durationMs(escalate.after, `${subject} approval.escalate.after`, "24h");
  if (ttlMs !== undefined && afterMs >= ttlMs) throw bad("approval.escalate.after must be shorter than approval.ttl: the request would expire before it escalates");
  const { requires } = escalate;
  if (!Array.isArray(requires) || requires.length === 0 || requires.length > 32 || !requires.every((r) => typeof r === "string" && r.trim() !== "" && r.length <= 200)) {
    throw bad("approval.escalate.requires must be a list of 1 to 32 non-empty strings (at most 200 characters each) naming who decides after the escalation");
  }
  if (escalate.notify !== undefined && typeof escalate.notify !== "function") throw bad("approval.escalate.notify must be a function");
}
