/**
 * The code table: every stable error code, and what it means for behaviour. A code never
 * changes meaning once shipped; across the Temporal wire it travels as the `type` of an
 * `ApplicationFailure`. Retry policies, log levels, HTTP statuses, the error registry
 * and docs/reference/errors.md's table all read this one table (a test checks the last three).
 *
 * - `retryable`: whether Temporal may retry an activity that failed with this code. Every
 *   code the SDK raises today is a verdict a retry cannot change.
 * - `benign`: an expected refusal or outcome, not a fault: it travels with Temporal's
 *   `BENIGN` category, so workers log it at debug level instead of a warning with a stack.
 * - `http`: the status the HTTP front door answers with.
 */
export const CODE_TABLE = {
  RC5040: { name: "DeferralSecretInvalid", retryable: false, benign: false, http: 500, when: "deferral secret missing or shorter than 32 bytes" },
  RC5041: { name: "ResumeTokenInvalid", retryable: false, benign: true, http: 401, when: "resume token malformed or forged" },
  RC5042: { name: "NotPlainJson", retryable: false, benign: true, http: 400, when: "payload or meta is not plain JSON" },
  RC5046: { name: "DeferralNotFound", retryable: false, benign: true, http: 404, when: "no deferral with that id" },
  RC5047: { name: "DeferralExpired", retryable: false, benign: true, http: 410, when: "deferral expired (also the run's failure when nothing handles the expiry)" },
  RC5048: { name: "DefinitionChanged", retryable: false, benign: true, http: 409, when: "the agent definition changed while deferred; the deferral is denied" },
  RC5049: { name: "ResumePayloadInvalid", retryable: false, benign: true, http: 400, when: "payload fails the deferral's schema; the token is not spent" },
  RC5050: { name: "DeferralDenied", retryable: false, benign: true, http: 409, when: "deferral denied; its tokens read this from then on" },
  RC5051: { name: "DeferInFanOut", retryable: false, benign: false, http: 409, when: "defer inside a `fanOut()` branch (or an agent dispatched from one)" },
  RC5052: { name: "DeferralNotConfigured", retryable: false, benign: false, http: 500, when: "a tool deferred on a worker without `deferral: { secret }`" },
  RC5054: { name: "DeferralCancelled", retryable: false, benign: true, http: 409, when: "cancellation raced the deferral; it is refused or denied" },
  RC5055: { name: "ToolCallMismatch", retryable: false, benign: true, http: 409, when: "the token belongs to a tool call that did not win the deferral" },
  RC5056: { name: "ResumeUnauthorized", retryable: false, benign: true, http: 403, when: "the authorize hook did not return exactly `true`" },
  RC5057: { name: "DeferralAlreadyResumed", retryable: false, benign: true, http: 409, when: "`deferrals.deny()` of a deferral that was already resumed: its answer stands" },
  RC5058: { name: "DeferralChanged", retryable: false, benign: true, http: 409, when: "a resume or decision made on a deferred call that changed since it was shown (a rewrite); the token is not spent, nothing changes" },
  AI1001: { name: "InvalidDefinition", retryable: false, benign: false, http: 400, when: "invalid agent, tool or option" },
  AI1002: { name: "AgentNotRegistered", retryable: false, benign: false, http: 500, when: "the worker does not know the run's agent" },
  AI1003: { name: "ModelCallFailed", retryable: false, benign: false, http: 502, when: "the model call failed for good: the provider refused it (400/401/403/404) or its retries ran out" },
  AI1004: { name: "MaxTurnsExceeded", retryable: false, benign: false, http: 422, when: "`maxTurns` reached" },
  AI1005: { name: "RunCancelled", retryable: false, benign: true, http: 409, when: "run cancelled (or timed out); carries turns and the whole run's usage" },
  AI1006: { name: "DeferOutsideRun", retryable: false, benign: false, http: 400, when: "`ctx.defer()` outside an agent run (e.g. `testTool`)" },
  AI1007: { name: "StepStateInvalid", retryable: false, benign: true, http: 409, when: "stored step state cannot be re-entered (agent gone, other agent's or call's state, budget rewritten)" },
  AI1008: { name: "ThreadRewriteInvalid", retryable: false, benign: true, http: 400, when: "transcript rewrite refused (names the defect): broken call/result pairing, the deferred call changed or dropped, or tool calls, tool results or system messages the run did not have without `trustTranscript`" },
  AI1009: { name: "ContextOverflow", retryable: false, benign: true, http: 413, when: "prompt exceeds the model's context window (`isContextOverflow(err)`)" },
  AI1010: { name: "RunNotFound", retryable: false, benign: true, http: 404, when: "no run with that id" },
  AI1011: { name: "DispatchRefused", retryable: false, benign: true, http: 403, when: "a dispatched agent's `authorize` refused the principal (restored, not re-verified)" },
  AI1012: { name: "MessageMalformed", retryable: false, benign: true, http: 400, when: "an update or query argument of the wrong shape (sent around the clients): refused, nothing changes; or a start input of a version the worker does not know: the run or thread fails before it does anything" },
  AI1013: { name: "RunUnauthorized", retryable: false, benign: true, http: 403, when: "the agent client's `authorize` did not return exactly `true` for a run or deferral operation (start, state, result, cancel, deferral get, replace or deny)" },
  AI1014: { name: "RunTerminated", retryable: false, benign: false, http: 410, when: "the run was terminated (by an operator, or by Temporal for history or payload size) or timed out: it will not finish; start a new run" },
  AI1015: { name: "WorkerUnavailable", retryable: false, benign: true, http: 503, when: "a read that needs a worker got no answer in time: no worker polls the run's task queue, or none answered (`queryTimeout`)" },
  AI1016: { name: "PayloadTooLarge", retryable: false, benign: true, http: 413, when: "a prompt, message, payload, tool result or model answer too large for one Temporal payload (`MAX_PAYLOAD_BYTES`), or an approval request's calls over `MAX_APPROVAL_BYTES` as the model wrote them (the answer is refused) or as a decision edits them (the token is not spent); nothing is sent or changed" },
  AI1017: { name: "ToolCallsOverLimit", retryable: false, benign: false, http: 422, when: "one model answer asked for more tool calls than the agent's `maxToolCalls`; the answer is not kept, the run (or the thread's turn) fails" },
  AI1018: { name: "TranscriptFull", retryable: false, benign: true, http: 413, when: "a run's or thread's transcript has no room for a model answer, message or payload (the limits in Sizes); nothing is changed" },
  AI1019: { name: "DispatchConflict", retryable: false, benign: false, http: 409, when: "`ctx.dispatch()` found a run under its sub-run's id that this tool call did not start: its answer is not read, the task is not sent" },
  AI1020: { name: "ThreadNotFound", retryable: false, benign: true, http: 404, when: "no thread with that id (never created, or deleted)" },
  AI1021: { name: "ThreadUnauthorized", retryable: false, benign: true, http: 403, when: "the threads client's `authorize` did not return exactly `true`" },
  AI1022: { name: "ToolCallNotFound", retryable: false, benign: true, http: 404, when: "no async tool call with that id waits for a result (unknown id, or a sync tool's call)" },
  AI1023: { name: "DeferInThread", retryable: false, benign: false, http: 409, when: "`ctx.defer()` inside a thread turn; the turn fails" },
  AI1024: { name: "ThreadNotResumable", retryable: false, benign: true, http: 409, when: "`resumeThread` without a prompt on a thread with nothing to continue" },
  AI1025: { name: "ThreadAlreadyExists", retryable: false, benign: true, http: 409, when: "`createThread` with an id that is taken" },
  AI1026: { name: "AsyncToolOutsideThread", retryable: false, benign: false, http: 409, when: "an async tool called by an agent run" },
  AI1027: { name: "ThreadMessageInvalid", retryable: false, benign: true, http: 400, when: "a message, prompt or tool result that is malformed (not plain JSON, unpaired tool result, …)" },
  AI1028: { name: "ToolResultDuplicate", retryable: false, benign: true, http: 409, when: "the async call already has its result (answered as `{ status: \"duplicate\" }`)" },
  AI1029: { name: "ThreadTerminated", retryable: false, benign: false, http: 410, when: "the thread's workflow was terminated or timed out without being deleted: it will not answer again" },
  AI1030: { name: "ArchivedMessagesGone", retryable: false, benign: true, http: 410, when: "`listMessages` of a thread reached messages compaction archived in the history of a run the namespace no longer retains (past its retention period), or older than the 1,000 compactions a thread keeps the place of; later pages still read" },
  AI1031: { name: "CompactionFailed", retryable: false, benign: true, http: 502, when: "a thread's summarizer failed, answered nothing, or answered a summary no smaller than what it would replace; nothing was compacted, the turn goes on with the whole transcript (and is refused with AI1018 only if that no longer fits)" },
  AI1032: { name: "PermissionNotFound", retryable: false, benign: true, http: 404, when: "`approvals.revoke()` named no standing permission in force in that run or thread (unknown, already revoked, or lapsed); nothing changes" },
  AI1035: { name: "ApprovalPolicyFailed", retryable: false, benign: false, http: 500, when: "a tool's `needsApproval` policy threw or answered something other than `\"allow\"`, `\"ask\"`, `{ deny: reason }`, `true` or `false`; the run (or the thread's turn) fails before any call of that answer runs" },
  AI1039: { name: "ApprovalEscalated", retryable: false, benign: true, http: 409, when: "a decision authorized against an approval request's `requires` that escalated (`approval.escalate`) before the decision reached the run; the token is not spent, nothing changes: read the request again and decide if its new `requires` allow you" },
  AI1040: { name: "RequestMalformed", retryable: false, benign: true, http: 400, when: "an HTTP request the front door cannot read: malformed JSON, wrong types, missing or oversized fields, bad ids or query parameters" },
  AI1041: { name: "RequestTooLarge", retryable: false, benign: true, http: 413, when: "an HTTP request body over the front door's size limit" },
  AI1042: { name: "RouteNotFound", retryable: false, benign: true, http: 404, when: "no HTTP route with that method and path" },
  AI1043: { name: "CrossSiteRequest", retryable: false, benign: true, http: 403, when: "a state-changing HTTP request from another site (CSRF protection: Origin / Sec-Fetch-Site)" },
  AI1044: { name: "CodecUnauthorized", retryable: false, benign: true, http: 403, when: "the codec server's `authorize` hook did not return exactly `true`; nothing was encoded or decoded" },
  AI1045: { name: "CodecFailed", retryable: false, benign: true, http: 400, when: "the codec server could not encode or decode a payload (a key it does not hold, tampered or foreign bytes); nothing about the payload is shown" },
  AI1046: { name: "CodecMissing", retryable: false, benign: false, http: 500, when: "data is encoded by a payload codec (encrypted) that this client or CLI was not given; nothing is shown" },
  AI1047: { name: "HostNotAllowed", retryable: false, benign: true, http: 403, when: "an HTTP request whose `Host` or `Origin` the server does not allow (DNS rebinding protection); nothing is done" },
  AI1049: { name: "ConsoleSignInRequired", retryable: false, benign: true, http: 401, when: "the console (`GET /console…`) was asked for by a caller `authenticate` did not recognise (it returned no principal); nothing is shown: sign in first" },
  AI1060: { name: "ChatResponseMalformed", retryable: false, benign: false, http: 502, when: "a chat client (`durable-agents/react`, the `useChat` transport) got an answer or an event it cannot read from the front door; nothing was applied" },
  AI1070: { name: "McpOutputInvalid", retryable: false, benign: false, http: 502, when: "an MCP tool's run completed with an answer that does not match the tool's declared `output` schema; the caller gets `isError: true`" },
  AI1071: { name: "OutputInvalid", retryable: false, benign: false, http: 502, when: "an agent declares `output` and the model's final answer still did not parse as JSON matching the schema after `outputRetries` corrections; the run fails (a thread's turn fails) with the last problem" },
  AI1080: { name: "StreamTransportInvalid", retryable: false, benign: false, http: 500, when: "a stream transport (`redisStreamTransport`) was given options it cannot use: both `url` and `client`, a `channelPrefix` that is not a non-empty string, a codec without `encode` and `decode`, …; nothing was connected" },
  AI1090: { name: "ScheduleNotFound", retryable: false, benign: true, http: 404, when: "no agent schedule with that id (never created, deleted, or a Temporal schedule that does not start agent runs)" },
  AI1091: { name: "ScheduleAlreadyExists", retryable: false, benign: true, http: 409, when: "`schedules.create` with a `scheduleId` that is taken; the schedule that has it is unchanged" },
  AI1092: { name: "ScheduleSpecInvalid", retryable: false, benign: true, http: 400, when: "a schedule's `spec` that Temporal cannot read (a cron that does not parse, an interval under one second, no times at all), or an `overlap` or `catchupWindow` it does not take; nothing was created or changed" },
  AI1093: { name: "ScheduleUnauthorized", retryable: false, benign: true, http: 403, when: "the agent client's `authorize` did not return exactly `true` for a `schedule.*` operation; nothing was read or changed" },
} as const satisfies Record<string, CodeInfo>;

export interface CodeInfo {
  /** The key of the code in `ErrorCode`. */
  name: string;
  retryable: boolean;
  benign: boolean;
  http: number;
  /** When a user meets it: docs/reference/errors.md's table is generated from this. */
  when: string;
}

/** Every stable error code, by name: `ErrorCode.DeferralExpired === "RC5047"`. */
export const ErrorCode = Object.fromEntries(Object.entries(CODE_TABLE).map(([code, info]) => [info.name, code])) as {
  readonly [K in keyof typeof CODE_TABLE as (typeof CODE_TABLE)[K]["name"]]: K;
};

export type ErrorCode = keyof typeof CODE_TABLE;

/** True when `type` (a failure's type, anything) is one of the SDK's codes. Own keys only. */
export function isErrorCode(type: unknown): type is ErrorCode {
  return typeof type === "string" && Object.prototype.hasOwnProperty.call(CODE_TABLE, type);
}

/** The table row of a code. */
export function codeInfo(code: ErrorCode): CodeInfo {
  return CODE_TABLE[code];
}
