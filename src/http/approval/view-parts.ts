import type { ResumeResult } from "../../client/resume.js";
import type { DeferralRecord, DeferralView } from "../../core/deferral-record.js";
import type { ApprovalRequestContext } from "../../core/approval-context.js";
import type { DurableAgentsError } from "../../core/errors/base.js";
import { codeInfo, ErrorCode } from "../../core/errors/codes.js";
import type { JsonValue } from "../../core/json.js";
import { findToolCall } from "../../core/thread-transcript.js";
import { callViews, prefilled } from "./calls-form.js";
import { hintsOf, type ApprovalState, type ApprovalView } from "./view.js";

/**
 * A page's view before the route adds where the form posts: `shown` is the deferred
 * call's fingerprint the form displays, posted back as a hidden field.
 */
export type ViewParts = Omit<ApprovalView, "action" | "hidden" | "title" | "nonce"> & { title?: string; shown?: string };

export function stateView(state: ApprovalState, status: number, extra: { message?: string; code?: string } = {}): ViewParts {
  return { state, status, hints: {}, values: {}, errors: [], ...extra };
}

/**
 * The form for a waiting record: a deferral's answer generated from its schema, or for an
 * approval request one decision per call, whose edit fields start from the model's
 * arguments when nothing was submitted yet.
 */
export function formView(record: DeferralRecord & { context?: ApprovalRequestContext }, values: Record<string, string[]>, errors: string[]): ViewParts {
  const hints = hintsOf(record.meta);
  const title = hints.title ?? (typeof record.meta.title === "string" ? record.meta.title : undefined);
  const description = hints.description ?? (typeof record.meta.description === "string" ? record.meta.description : undefined);
  const calls = record.approval ? callViews(record.approval.calls, record.approval.decided) : undefined;
  const args = calls ? undefined : argumentsOf(record);
  return {
    state: "form",
    status: 200,
    ...(title ? { title } : {}),
    ...(description ? { description } : {}),
    ...(record.agentId ? { agentId: record.agentId } : {}),
    ...(record.toolName && !calls ? { toolName: record.toolName } : {}),
    ...(args !== undefined ? { arguments: args } : {}),
    expiresAt: record.expiresAt,
    msLeft: Math.max(0, Date.parse(record.expiresAt) - Date.now()),
    ...(record.schema && !calls ? { schema: record.schema } : {}),
    ...(calls ? { calls } : {}),
    hints,
    values: calls && Object.keys(values).length === 0 ? prefilled(calls) : values,
    errors,
    ...(record.callFingerprint !== undefined ? { shown: record.callFingerprint } : {}),
    ...(record.principal ? { actsFor: record.principal } : {}),
    ...(record.context ? { context: record.context } : {}),
  };
}

/** The form again, showing the call as it is now, for an answer given to something else: nothing was spent. */
export function changedView(record: DeferralRecord, values: Record<string, string[]>): ViewParts {
  const message = "This request is not the one your answer was given to (it changed, or the page was out of date). Nothing was changed: check it again below and answer it as it is now.";
  return { ...formView(record, values, [message]), status: 409, code: ErrorCode.DeferralChanged };
}

export function answeredView(result: Pick<ResumeResult, "outcome"> & Partial<Pick<ResumeResult, "deferralId">>, state: "answered" | "outcome"): ViewParts {
  // Deciding some of a request's calls leaves the run parked on that same request: it did not go on to another one.
  const rest = state === "outcome" && result.outcome.status === "deferred" && result.outcome.deferralId === result.deferralId;
  return {
    ...stateView(state, 200, {
      message:
        state === "answered"
          ? "Someone answered this request already; nothing was changed. This is what happened:"
          : rest
            ? "Your decisions were taken. The request's other calls still wait for a decision: open this page again to decide them."
            : "The run continued with your answer.",
    }),
    ...(rest ? {} : { outcome: result.outcome }),
  };
}

const REFUSALS: Partial<Record<string, { state: ApprovalState; message: string }>> = {
  [ErrorCode.DeferralExpired]: { state: "expired", message: "The time to answer has run out. Nothing was changed; ask for a new request if it is still needed." },
  [ErrorCode.ResumeUnauthorized]: { state: "refused", message: "Your account is not allowed to answer this request. Nothing was changed." },
  [ErrorCode.RunUnauthorized]: { state: "refused", message: "Your account is not allowed to see this request. Nothing was changed." },
  [ErrorCode.DeferralDenied]: { state: "denied", message: "The request was withdrawn or can no longer be answered. Nothing was changed." },
  [ErrorCode.DeferralCancelled]: { state: "denied", message: "The run was cancelled. Nothing was changed." },
  [ErrorCode.DefinitionChanged]: { state: "denied", message: "The agent changed while it waited, so this request was withdrawn." },
  [ErrorCode.ResumeTokenInvalid]: { state: "invalid", message: "This link was not issued here or was altered." },
  [ErrorCode.ToolCallMismatch]: { state: "invalid", message: "This link belongs to a request that did not go ahead." },
  [ErrorCode.DeferralNotFound]: { state: "missing", message: "There is no pending request for this link." },
};

export function refusalView(err: DurableAgentsError): ViewParts {
  const known = REFUSALS[err.code];
  return stateView(known?.state ?? "error", codeInfo(err.code).http, { message: known?.message ?? "The answer could not be taken. Nothing was changed.", code: err.code });
}

/** The deferred call's arguments, as the model wrote them: from the record read, else the step state. */
function argumentsOf(record: DeferralRecord & Partial<Pick<DeferralView, "stepState">>): JsonValue | undefined {
  const text = record.toolArguments ?? (record.stepState ? findToolCall(record.stepState.messages, record.toolCallId)?.call.function.arguments : undefined);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}
