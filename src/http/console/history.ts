import { isGrpcServiceError, type Client } from "@temporalio/client";
import { RunNotFoundError } from "../../core/errors/runs.js";
import { ThreadNotFoundError } from "../../core/errors/threads.js";
import type { LoadedDataConverter, Payload } from "@temporalio/common";
import type { temporal } from "@temporalio/proto";
import type { ChatMessage, ToolCall } from "../../core/messages.js";
import type { Principal } from "../../core/json.js";
import { decodePayloadAt } from "../../client/data-converter.js";
import { cancelUpdate, denyUpdate, resumeUpdate } from "../../core/wire/run.js";
import { threadResumeUpdate, threadSendUpdate, threadStopUpdate, threadToolResultUpdate } from "../../core/wire/thread.js";
import { inputChanges, type InputChange } from "../../core/approval-trail.js";
import type { JsonValue } from "../../core/json.js";
import { countActions, type ActionCount } from "./cost.js";
import { modelOfSummary, toolIdempotencyKey } from "../../core/step-summary.js";

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type Failure = temporal.api.failure.v1.IFailure;

/** Where a run or thread stands, as its history (or visibility) tells. */
export type ConsoleStatus = "running" | "completed" | "failed" | "cancelled" | "terminated" | "timed-out";

/** One entry of a run's or thread's timeline, read from its history. */
export type TimelineEntry =
  /** `model`: the one the call was scheduled for (its summary); `fallback`: the model that answered instead, when the agent's was out. */
  | { type: "model"; at: string; durationMs?: number; attempts: number; model?: string; fallback?: string; tokensIn?: number; tokensOut?: number; calls: string[]; waiting: string[]; error?: FailureView }
  /** `idempotencyKey`: the handler's `ctx.idempotencyKey`. */
  | { type: "tool"; at: string; durationMs?: number; attempts: number; toolName: string; toolCallId: string; idempotencyKey: string; input: string; result?: string; isError?: boolean; deferred?: boolean; started?: boolean; error?: FailureView }
  | { type: "decision"; at: string; by?: string; what: string; edits?: DecisionEdit[] }
  | { type: "message"; at: string; by?: string }
  | { type: "cancel"; at: string; by?: string }
  /** A thread's turn stopped (`stopThread`), and a stopped or failed turn continued (`resumeThread`). */
  | { type: "stop"; at: string }
  | { type: "resume"; at: string; prompt: boolean }
  | { type: "continued-as-new"; at: string }
  | { type: "end"; at: string; status: ConsoleStatus; failure?: FailureView }
  /** A sub-agent: the child run the call `toolCallId` started, and how it ended as far as this history tells. */
  | { type: "sub-agent"; at: string; childId: string; agentId?: string; toolCallId?: string; status: ConsoleStatus; endedAt?: string; failure?: FailureView }
  /** An async tool's answer (`addToolResult` / `addToolError`): whose client sent it, and how long the call waited for it. */
  | { type: "answer"; at: string; toolCallId: string; toolName?: string; isError: boolean; waitedMs?: number; identity?: string }
  /** An approval request told its approvers again (a tool's `notify`, the only trace a reminder leaves in history). */
  | { type: "reminded"; at: string; approvalId: string; reminder: number }
  /** An approval request passed to other approvers (`approval.escalate`), as its notification says. */
  | { type: "escalated"; at: string; approvalId: string; requires: string[] };

/** An approver's edit of one call's input, as the changes it made to what the model wrote. */
export interface DecisionEdit {
  toolCallId: string;
  toolName?: string;
  changes: InputChange[];
}

export interface FailureView {
  /** The SDK's code (the failure's type), when it has one. */
  code?: string;
  message: string;
}

/** A run or thread as its history shows it: who, the conversation, and what happened when. */
export interface ConsoleDetail {
  kind: "run" | "thread";
  id: string;
  agentId?: string;
  principal?: Principal;
  status: ConsoleStatus;
  startedAt?: string;
  closedAt?: string;
  transcript: ChatMessage[];
  timeline: TimelineEntry[];
  failure?: FailureView;
  /** Executions read (1 + continue-as-new boundaries crossed). */
  executions: number;
  /** The history was longer than the console reads in one view: the oldest part is left out. */
  truncated: boolean;
  /** Billed actions counted from the history read (of what is read, when truncated). */
  actions: ActionCount;
}

const GRPC_NOT_FOUND = 5;

/** At most this many history events are read for one view (a few pages): the newest are kept. */
const MAX_EVENTS = 20_000;

/**
 * Reads the whole history of `workflowId` (every execution, across continue-as-new) and
 * turns it into a transcript and a timeline. History reads are not billed actions (no
 * query, no worker involved); payloads are decoded through the client's data converter, a
 * codec included.
 */
export async function readDetail(client: Client, taskQueue: string, kind: "run" | "thread", workflowId: string): Promise<ConsoleDetail> {
  const converter = client.options.loadedDataConverter;
  const notFound = () => (kind === "run" ? new RunNotFoundError({ runId: workflowId }) : new ThreadNotFoundError({ threadId: workflowId }));
  let latest: Awaited<ReturnType<typeof readExecution>>;
  try {
    latest = await readExecution(client, workflowId, undefined);
  } catch (err) {
    if (isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND) throw notFound();
    throw err;
  }
  const startedAttrs = latest.events[0]?.workflowExecutionStartedEventAttributes;
  // Another app's workflow in the namespace, or a thread asked for as a run, is none of this console's.
  if (startedAttrs?.workflowType?.name !== (kind === "run" ? "agentRun" : "agentThread") || startedAttrs.taskQueue?.name !== taskQueue) throw notFound();
  // The first execution, when the workflow continued as new: its history starts the conversation.
  const first = startedAttrs?.firstExecutionRunId ?? undefined;
  const executions: HistoryEvent[][] = [];
  let truncated = false;
  if (first && startedAttrs?.continuedExecutionRunId) {
    let runId: string | undefined = first;
    let total = 0;
    while (runId) {
      const read: { runId?: string; events: HistoryEvent[]; truncated: boolean } = runId === latest.runId ? latest : await readExecution(client, workflowId, runId);
      executions.push(read.events);
      total += read.events.length;
      truncated ||= read.truncated;
      runId = read.events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
      if (total > MAX_EVENTS && runId) {
        truncated = true;
        executions.length = 0;
        executions.push(latest.events);
        break;
      }
    }
  } else {
    executions.push(latest.events);
    truncated = latest.truncated;
  }
  const detail: ConsoleDetail = { kind, id: workflowId, status: "running", transcript: [], timeline: [], executions: executions.length, truncated, actions: countActions(executions) };
  const fold = new Fold(detail, converter);
  for (const events of executions) await fold.execution(events);
  if (fold.prompt !== undefined && !detail.transcript.some((m) => m.role === "user")) detail.transcript.unshift({ role: "user", content: fold.prompt });
  return detail;
}

async function readExecution(client: Client, workflowId: string, runId: string | undefined): Promise<{ runId?: string; events: HistoryEvent[]; truncated: boolean }> {
  const events: HistoryEvent[] = [];
  let nextPageToken: Uint8Array | undefined;
  let truncated = false;
  let resolvedRunId = runId;
  do {
    const response = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId, ...(runId ? { runId } : {}) },
      skipArchival: true,
      ...(nextPageToken && nextPageToken.length > 0 ? { nextPageToken } : {}),
    });
    for (const e of response.history?.events ?? []) events.push(e);
    nextPageToken = response.nextPageToken ?? undefined;
    if (events.length > MAX_EVENTS) {
      truncated = true;
      break;
    }
  } while (nextPageToken && nextPageToken.length > 0);
  resolvedRunId ??= events[0]?.workflowExecutionStartedEventAttributes?.originalExecutionRunId ?? undefined;
  return { ...(resolvedRunId ? { runId: resolvedRunId } : {}), events, truncated };
}

interface Scheduled {
  name: string;
  input: unknown;
  at: string;
  startedAt?: number;
  attempts: number;
  /** The summary the workflow gave the call (user metadata on its scheduling). */
  summary?: unknown;
}

/** Folds history events into a detail, one execution after the other. */
class Fold {
  // A tool result sent to the model by reference has empty content: its tool call's result fills it.
  readonly #toolResults = new Map<string, string>();
  // What the model asked for, by call id: an approver's edit is shown against it.
  readonly #calls = new Map<string, { name: string; arguments: string }>();
  // Async tool calls started and not yet answered: since when.
  readonly #waitingSince = new Map<string, number>();
  prompt: string | undefined;

  constructor(
    private readonly detail: ConsoleDetail,
    private readonly converter: LoadedDataConverter,
  ) {}

  async execution(events: HistoryEvent[]): Promise<void> {
    const scheduled = new Map<string, Scheduled>();
    const children = new Map<string, Extract<TimelineEntry, { type: "sub-agent" }>>();
    for (const event of events) {
      const at = timeOf(event);
      const a = event;
      if (a.workflowExecutionStartedEventAttributes) {
        const input = await this.#decode<Record<string, unknown>>(a.workflowExecutionStartedEventAttributes.input?.payloads);
        if (this.detail.startedAt === undefined) {
          this.detail.startedAt = at;
          if (input && typeof input.agentId === "string") this.detail.agentId = input.agentId;
          const principal = input?.principal;
          if (isPrincipal(principal)) this.detail.principal = principal;
          // Shown only while no model call has read it yet: each call's input carries what it appended (the prompt too).
          if (input && typeof input.prompt === "string") this.prompt = input.prompt;
        }
      } else if (a.activityTaskScheduledEventAttributes) {
        const s = a.activityTaskScheduledEventAttributes;
        const summary = a.userMetadata?.summary ? await this.#decode([a.userMetadata.summary]) : undefined;
        scheduled.set(String(a.eventId), { name: s.activityType?.name ?? "", input: await this.#decode(s.input?.payloads), at, attempts: 1, ...(summary !== undefined ? { summary } : {}) });
        if (s.activityType?.name === "notifyApproval") this.#notified(scheduled.get(String(a.eventId))!.input, at);
      } else if (a.activityTaskStartedEventAttributes) {
        const s = a.activityTaskStartedEventAttributes;
        const call = scheduled.get(String(s.scheduledEventId));
        if (call) {
          call.attempts = s.attempt ?? 1;
          call.startedAt = Date.parse(at);
        }
      } else if (a.activityTaskCompletedEventAttributes) {
        const s = a.activityTaskCompletedEventAttributes;
        const call = scheduled.get(String(s.scheduledEventId));
        if (call) this.#activity(call, at, { result: await this.#decode(s.result?.payloads) });
      } else if (a.activityTaskFailedEventAttributes || a.activityTaskTimedOutEventAttributes || a.activityTaskCanceledEventAttributes) {
        const s = a.activityTaskFailedEventAttributes ?? a.activityTaskTimedOutEventAttributes;
        const id = s?.scheduledEventId ?? a.activityTaskCanceledEventAttributes?.scheduledEventId;
        const call = scheduled.get(String(id));
        if (call) this.#activity(call, at, { error: s?.failure ? failureView(s.failure) : { message: "cancelled" } });
      } else if (a.workflowExecutionUpdateAcceptedEventAttributes) {
        const request = a.workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest?.input;
        await this.#update(request?.name ?? "", await this.#decode(request?.args?.payloads), at);
        if (request?.name === threadToolResultUpdate.name) {
          const identity = a.workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest?.meta?.identity;
          this.#answered(await this.#decode(request.args?.payloads), at, identity ?? undefined);
        }
      } else if (a.startChildWorkflowExecutionInitiatedEventAttributes) {
        const s = a.startChildWorkflowExecutionInitiatedEventAttributes;
        const input = await this.#decode<{ agentId?: unknown }>(s.input?.payloads);
        const childId = s.workflowId ?? "";
        // A sub-agent's id is `<caller>/agent/<toolCallId>` (a thread's repeated call id gets `~n`).
        const toolCallId = /\/agent\/([^/]+?)(~\d+)?$/.exec(childId)?.[1];
        const entry = { type: "sub-agent" as const, at, childId, ...(typeof input?.agentId === "string" ? { agentId: input.agentId } : {}), ...(toolCallId ? { toolCallId } : {}), status: "running" as ConsoleStatus };
        children.set(String(a.eventId), entry);
        this.detail.timeline.push(entry);
      } else if (
        a.childWorkflowExecutionCompletedEventAttributes ||
        a.childWorkflowExecutionFailedEventAttributes ||
        a.childWorkflowExecutionCanceledEventAttributes ||
        a.childWorkflowExecutionTerminatedEventAttributes ||
        a.childWorkflowExecutionTimedOutEventAttributes ||
        a.startChildWorkflowExecutionFailedEventAttributes
      ) {
        await this.#childEnded(a, children, at);
      } else if (a.workflowExecutionContinuedAsNewEventAttributes) {
        this.detail.timeline.push({ type: "continued-as-new", at });
      } else if (a.workflowExecutionCompletedEventAttributes) {
        this.#end(at, "completed");
        const result = await this.#decode<Record<string, unknown>>(a.workflowExecutionCompletedEventAttributes.result?.payloads);
        if (result && result.status === "failed" && typeof result.error === "object" && result.error !== null) {
          const error = result.error as { code?: unknown; message?: unknown };
          this.detail.failure = { ...(typeof error.code === "string" ? { code: error.code } : {}), message: String(error.message ?? "") };
        }
      } else if (a.workflowExecutionFailedEventAttributes) {
        const failure = failureView(a.workflowExecutionFailedEventAttributes.failure);
        this.#end(at, failure.code === "AI1005" ? "cancelled" : "failed", failure);
      } else if (a.workflowExecutionCanceledEventAttributes) {
        this.#end(at, "cancelled");
      } else if (a.workflowExecutionTerminatedEventAttributes) {
        this.#end(at, "terminated", { message: a.workflowExecutionTerminatedEventAttributes.reason || "terminated" });
      } else if (a.workflowExecutionTimedOutEventAttributes) {
        this.#end(at, "timed-out");
      }
    }
  }

  async #childEnded(a: HistoryEvent, children: Map<string, Extract<TimelineEntry, { type: "sub-agent" }>>, at: string): Promise<void> {
    const ended =
      a.childWorkflowExecutionCompletedEventAttributes ??
      a.childWorkflowExecutionFailedEventAttributes ??
      a.childWorkflowExecutionCanceledEventAttributes ??
      a.childWorkflowExecutionTerminatedEventAttributes ??
      a.childWorkflowExecutionTimedOutEventAttributes ??
      a.startChildWorkflowExecutionFailedEventAttributes;
    const entry = children.get(String(ended?.initiatedEventId));
    if (!entry) return;
    entry.endedAt = at;
    if (a.childWorkflowExecutionCompletedEventAttributes) {
      const result = await this.#decode<{ status?: unknown; error?: { code?: unknown; message?: unknown } }>(a.childWorkflowExecutionCompletedEventAttributes.result?.payloads);
      entry.status = result?.status === "failed" ? "failed" : "completed";
      if (result?.status === "failed" && result.error) entry.failure = { ...(typeof result.error.code === "string" ? { code: result.error.code } : {}), message: String(result.error.message ?? "") };
    } else if (a.childWorkflowExecutionFailedEventAttributes) {
      entry.failure = failureView(a.childWorkflowExecutionFailedEventAttributes.failure);
      entry.status = entry.failure.code === "AI1005" ? "cancelled" : "failed";
    } else if (a.childWorkflowExecutionCanceledEventAttributes) entry.status = "cancelled";
    else if (a.childWorkflowExecutionTerminatedEventAttributes) entry.status = "terminated";
    else if (a.childWorkflowExecutionTimedOutEventAttributes) entry.status = "timed-out";
    else {
      entry.status = "failed";
      entry.failure = { message: "the sub-agent's run could not be started (a workflow with its id exists already)" };
    }
  }

  #notified(input: unknown, at: string): void {
    const n = (typeof input === "object" && input !== null ? input : {}) as { deferralId?: unknown; reason?: unknown; reminder?: unknown; requires?: unknown };
    const approvalId = String(n.deferralId ?? "");
    if (n.reason === "reminder") this.detail.timeline.push({ type: "reminded", at, approvalId, reminder: Number(n.reminder) || 1 });
    else if (n.reason === "escalated") this.detail.timeline.push({ type: "escalated", at, approvalId, requires: Array.isArray(n.requires) ? n.requires.map(String) : [] });
  }

  #answered(arg: unknown, at: string, identity: string | undefined): void {
    const request = (typeof arg === "object" && arg !== null ? arg : {}) as { toolCallId?: unknown; error?: unknown };
    const toolCallId = String(request.toolCallId ?? "");
    const since = this.#waitingSince.get(toolCallId);
    this.#waitingSince.delete(toolCallId);
    const toolName = this.#calls.get(toolCallId)?.name;
    this.detail.timeline.push({
      type: "answer",
      at,
      toolCallId,
      ...(toolName ? { toolName } : {}),
      isError: request.error !== undefined,
      ...(since !== undefined ? { waitedMs: Math.max(0, Date.parse(at) - since) } : {}),
      ...(identity ? { identity } : {}),
    });
  }

  /** Each approved call the approver edited, as the changes from what the model wrote. */
  #edits(payload: unknown): DecisionEdit[] {
    const decisions = (payload as { decisions?: unknown } | null)?.decisions;
    if (!Array.isArray(decisions)) return [];
    return decisions.flatMap((d: { toolCallId?: unknown; approved?: unknown; input?: unknown }) => {
      if (d?.approved !== true || d.input === undefined) return [];
      const toolCallId = String(d.toolCallId ?? "");
      const asked = this.#calls.get(toolCallId);
      const changes = inputChanges(parsedJson(asked?.arguments), d.input as JsonValue);
      return changes.length > 0 ? [{ toolCallId, ...(asked ? { toolName: asked.name } : {}), changes }] : [];
    });
  }

  #end(at: string, status: ConsoleStatus, failure?: FailureView): void {
    this.detail.status = status;
    this.detail.closedAt = at;
    if (failure) this.detail.failure = failure;
    this.detail.timeline.push({ type: "end", at, status, ...(failure ? { failure } : {}) });
  }

  async #update(name: string, arg: unknown, at: string): Promise<void> {
    const request = (typeof arg === "object" && arg !== null ? arg : {}) as Record<string, unknown>;
    const by = (p: unknown) => (isPrincipal(p) ? { by: p.id } : {});
    if (name === resumeUpdate.name) {
      const edits = this.#edits(request.payload);
      this.detail.timeline.push({ type: "decision", at, ...by(request.resumedBy), what: decisionText(request.payload), ...(edits.length > 0 ? { edits } : {}) });
    } else if (name === denyUpdate.name) {
      this.detail.timeline.push({ type: "decision", at, ...by(request.deniedBy), what: `denied: ${String(request.reason ?? "")}` });
    } else if (name === cancelUpdate.name) {
      this.detail.timeline.push({ type: "cancel", at });
    } else if (name === threadStopUpdate.name) {
      this.detail.timeline.push({ type: "stop", at });
    } else if (name === threadResumeUpdate.name) {
      this.detail.timeline.push({ type: "resume", at, prompt: typeof request.prompt === "object" && request.prompt !== null });
    } else if (name === threadSendUpdate.name) {
      this.detail.timeline.push({ type: "message", at, ...by(request.principal) });
    }
  }

  #activity(call: Scheduled, at: string, end: { result?: unknown; error?: FailureView }): void {
    const durationMs = call.startedAt !== undefined ? Math.max(0, Date.parse(at) - call.startedAt) : undefined;
    const timing = { at: call.at, ...(durationMs !== undefined ? { durationMs } : {}), attempts: call.attempts };
    const input = (typeof call.input === "object" && call.input !== null ? call.input : {}) as Record<string, unknown>;
    if (call.name === "callAgentModel") {
      this.#modelInput(input);
      const answer = (end.result ?? {}) as { message?: { content?: string | null; tool_calls?: ToolCall[] }; usage?: { promptTokens?: number; completionTokens?: number; fallback?: Record<string, unknown> }; gate?: { calls?: Array<{ toolCallId?: string }> } };
      const model = modelOfSummary(call.summary);
      const fallback = typeof answer.usage?.fallback === "object" && answer.usage.fallback !== null ? Object.keys(answer.usage.fallback)[0] : undefined;
      const message = answer.message;
      for (const c of message?.tool_calls ?? []) this.#calls.set(c.id, { name: c.function?.name ?? "", arguments: c.function?.arguments ?? "" });
      if (message) this.detail.transcript.push({ role: "assistant", content: message.content ?? null, ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}) } as ChatMessage);
      this.detail.timeline.push({
        type: "model",
        ...timing,
        ...(model !== undefined ? { model } : {}),
        ...(fallback !== undefined ? { fallback } : {}),
        ...(typeof answer.usage?.promptTokens === "number" ? { tokensIn: answer.usage.promptTokens } : {}),
        ...(typeof answer.usage?.completionTokens === "number" ? { tokensOut: answer.usage.completionTokens } : {}),
        calls: (message?.tool_calls ?? []).map((c) => c.function?.name ?? ""),
        waiting: (answer.gate?.calls ?? []).map((c) => String(c.toolCallId ?? "")),
        ...(end.error ? { error: end.error } : {}),
      });
    } else if (call.name === "callAgentTool") {
      const toolCall = input.toolCall as ToolCall | undefined;
      const result = (end.result ?? {}) as { content?: string; isError?: boolean; deferred?: unknown; started?: boolean };
      const id = toolCall?.id ?? "";
      if (typeof result.content === "string") this.#toolResults.set(id, result.content);
      if (result.started) this.#waitingSince.set(id, Date.parse(at));
      this.detail.timeline.push({
        type: "tool",
        ...timing,
        toolName: toolCall?.function?.name ?? "",
        toolCallId: id,
        idempotencyKey: toolIdempotencyKey(typeof input.workflowId === "string" ? input.workflowId : this.detail.id, id, typeof input.occurrence === "number" ? input.occurrence : undefined),
        input: toolCall?.function?.arguments ?? "",
        ...(typeof result.content === "string" ? { result: result.content } : {}),
        ...(result.isError ? { isError: true } : {}),
        ...(result.deferred ? { deferred: true } : {}),
        ...(result.started ? { started: true } : {}),
        ...(end.error ? { error: end.error } : {}),
      });
    }
  }

  // What the workflow appended to the transcript since the last model call (the user's messages, tool results).
  #modelInput(input: Record<string, unknown>): void {
    const delta = Array.isArray(input.delta) ? (input.delta as ChatMessage[]) : [];
    for (const message of delta) {
      if (typeof message !== "object" || message === null) continue;
      if (message.role === "tool" && !message.content) {
        this.detail.transcript.push({ ...message, content: this.#toolResults.get(message.tool_call_id) ?? "" });
        continue;
      }
      // The agent's system prompt is the definition's, not the conversation's.
      if (message.role === "system") continue;
      this.detail.transcript.push(message);
    }
  }

  async #decode<T>(payloads: Payload[] | null | undefined): Promise<T | undefined> {
    if (!payloads || payloads.length === 0) return undefined;
    return decodePayloadAt<T>(this.converter, 0, payloads);
  }
}

function failureView(failure: Failure | null | undefined): FailureView {
  // The SDK's errors travel as ApplicationFailures whose type is their code; an activity's failure wraps its cause.
  let f = failure;
  while (f && !f.applicationFailureInfo?.type && f.cause) f = f.cause;
  const code = f?.applicationFailureInfo?.type ?? undefined;
  return { ...(code && /^[A-Z]{2}\d{4}$/.test(code) ? { code } : {}), message: f?.message ?? failure?.message ?? "" };
}

/** A resume's payload in words: each call's decision, or "answered" for a deferral's payload. */
function decisionText(payload: unknown): string {
  const decisions = (payload as { decisions?: unknown } | null)?.decisions;
  if (!Array.isArray(decisions)) return "answered";
  return decisions
    .map((d: { toolCallId?: unknown; approved?: unknown; respond?: unknown; input?: unknown }) => {
      const what = d?.approved === true ? (d.input !== undefined ? "approved with an edit" : "approved") : d?.approved === false ? "rejected" : d?.respond !== undefined ? "responded" : "decided";
      return `${what} ${String(d?.toolCallId ?? "")}`.trim();
    })
    .join(", ");
}

function parsedJson(text: string | undefined): JsonValue | undefined {
  try {
    return text === undefined ? undefined : (JSON.parse(text) as JsonValue);
  } catch {
    return undefined;
  }
}

function isPrincipal(value: unknown): value is Principal {
  return typeof value === "object" && value !== null && typeof (value as { id?: unknown }).id === "string";
}

function timeOf(event: HistoryEvent): string {
  const t = event.eventTime;
  const ms = t ? Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : 0;
  return new Date(ms).toISOString();
}

/**
 * What changes whenever the workflow's history grows: its newest event (id and time), read
 * alone, newest first (free). Undefined for a workflow Temporal does not know.
 */
export async function historyVersion(client: Client, workflowId: string): Promise<string | undefined> {
  try {
    const response = await client.workflowService.getWorkflowExecutionHistoryReverse({ namespace: client.options.namespace, execution: { workflowId }, maximumPageSize: 1 });
    const newest = response.history?.events?.[0];
    return newest ? `${String(newest.eventId)}-${timeOf(newest)}` : undefined;
  } catch (err) {
    if (isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND) return undefined;
    throw err;
  }
}
