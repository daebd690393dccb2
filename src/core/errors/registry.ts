import type { ErrorCode } from "./codes.js";
import { MessageMalformedError } from "./message-malformed.js";
import { DeferralSecretError } from "./deferral-secret.js";
import { ResumeTokenError } from "./resume-token.js";
import { NotPlainJsonError } from "./not-plain-json.js";
import { DeferralNotFoundError } from "./deferral-not-found.js";
import { DeferralExpiredError } from "./deferral-expired.js";
import { DefinitionChangedError } from "./definition-changed.js";
import { ResumePayloadError } from "./resume-payload.js";
import { DeferralDeniedError } from "./deferral-denied.js";
import { DeferralAlreadyResumedError } from "./deferral-already-resumed.js";
import { DeferInFanOutError } from "./defer-in-fan-out.js";
import { DeferralNotConfiguredError } from "./deferral-not-configured.js";
import { DeferralCancelledError } from "./deferral-cancelled.js";
import { ToolCallMismatchError } from "./tool-call-mismatch.js";
import { ResumeUnauthorizedError } from "./resume-unauthorized.js";
import { RunCancelledError } from "./run-cancelled.js";
import { DeferOutsideRunError } from "./defer-outside-run.js";
import { StepStateError } from "./step-state.js";
import { ThreadRewriteError } from "./thread-rewrite.js";
import { DispatchRefusedError } from "./dispatch-refused.js";
import { DispatchConflictError } from "./dispatch-conflict.js";
import { AgentNotRegisteredError } from "./agent-not-registered.js";
import { ContextOverflowError } from "./context-overflow.js";
import { InvalidDefinitionError } from "./invalid-definition.js";
import { MaxTurnsError } from "./max-turns.js";
import { ModelCallFailedError } from "./model-call-failed.js";
import { RunNotFoundError } from "./run-not-found.js";
import { RunUnauthorizedError } from "./run-unauthorized.js";
import { RequestMalformedError } from "./request-malformed.js";
import { ThreadNotFoundError } from "./thread-not-found.js";
import { ThreadUnauthorizedError } from "./thread-unauthorized.js";
import { ToolCallNotFoundError } from "./tool-call-not-found.js";
import { DeferInThreadError } from "./defer-in-thread.js";
import { ThreadNotResumableError } from "./thread-not-resumable.js";
import { ThreadAlreadyExistsError } from "./thread-already-exists.js";
import { AsyncToolOutsideThreadError } from "./async-tool-outside-thread.js";
import { ThreadMessageInvalidError } from "./thread-message-invalid.js";
import { ToolResultDuplicateError } from "./tool-result-duplicate.js";
import { RequestTooLargeError } from "./request-too-large.js";
import { RouteNotFoundError } from "./route-not-found.js";
import { CrossSiteRequestError } from "./cross-site-request.js";
import { CodecUnauthorizedError } from "./codec-unauthorized.js";
import { CodecFailedError } from "./codec-failed.js";
import { RunTerminatedError } from "./run-terminated.js";
import { WorkerUnavailableError } from "./worker-unavailable.js";
import { PayloadTooLargeError } from "./payload-too-large.js";
import { ChatResponseMalformedError } from "./chat-response-malformed.js";
import { McpOutputInvalidError } from "./mcp-output-invalid.js";
import { OutputInvalidError } from "./output-invalid.js";
import { ToolCallsOverLimitError } from "./tool-calls-over-limit.js";
import { TranscriptFullError } from "./transcript-full.js";
import { ThreadTerminatedError } from "./thread-terminated.js";
import { CodecMissingError } from "./codec-missing.js";
import { HostNotAllowedError } from "./host-not-allowed.js";
import { DeferralChangedError } from "./deferral-changed.js";
import { StreamTransportInvalidError } from "./stream-transport-invalid.js";

/**
 * Code → class, so a failure that crossed the wire can be rebuilt as the typed error.
 * Typed against the code table: a code without its class (or a class under another code) fails to compile.
 */
export const errorClasses = {
  [InvalidDefinitionError.code]: InvalidDefinitionError,
  [AgentNotRegisteredError.code]: AgentNotRegisteredError,
  [ModelCallFailedError.code]: ModelCallFailedError,
  [MaxTurnsError.code]: MaxTurnsError,
  [ContextOverflowError.code]: ContextOverflowError,
  [RunNotFoundError.code]: RunNotFoundError,
  [RunUnauthorizedError.code]: RunUnauthorizedError,
  [DeferralSecretError.code]: DeferralSecretError,
  [ResumeTokenError.code]: ResumeTokenError,
  [NotPlainJsonError.code]: NotPlainJsonError,
  [DeferralNotFoundError.code]: DeferralNotFoundError,
  [DeferralExpiredError.code]: DeferralExpiredError,
  [DefinitionChangedError.code]: DefinitionChangedError,
  [ResumePayloadError.code]: ResumePayloadError,
  [DeferralDeniedError.code]: DeferralDeniedError,
  [DeferralAlreadyResumedError.code]: DeferralAlreadyResumedError,
  [DeferInFanOutError.code]: DeferInFanOutError,
  [DeferralNotConfiguredError.code]: DeferralNotConfiguredError,
  [DeferralCancelledError.code]: DeferralCancelledError,
  [ToolCallMismatchError.code]: ToolCallMismatchError,
  [ResumeUnauthorizedError.code]: ResumeUnauthorizedError,
  [RunCancelledError.code]: RunCancelledError,
  [DeferOutsideRunError.code]: DeferOutsideRunError,
  [StepStateError.code]: StepStateError,
  [ThreadRewriteError.code]: ThreadRewriteError,
  [ThreadNotFoundError.code]: ThreadNotFoundError,
  [ThreadUnauthorizedError.code]: ThreadUnauthorizedError,
  [ToolCallNotFoundError.code]: ToolCallNotFoundError,
  [DeferInThreadError.code]: DeferInThreadError,
  [ThreadNotResumableError.code]: ThreadNotResumableError,
  [ThreadAlreadyExistsError.code]: ThreadAlreadyExistsError,
  [AsyncToolOutsideThreadError.code]: AsyncToolOutsideThreadError,
  [ThreadMessageInvalidError.code]: ThreadMessageInvalidError,
  [ToolResultDuplicateError.code]: ToolResultDuplicateError,
  [DispatchRefusedError.code]: DispatchRefusedError,
  [DispatchConflictError.code]: DispatchConflictError,
  [RequestMalformedError.code]: RequestMalformedError,
  [MessageMalformedError.code]: MessageMalformedError,
  [RunTerminatedError.code]: RunTerminatedError,
  [WorkerUnavailableError.code]: WorkerUnavailableError,
  [ChatResponseMalformedError.code]: ChatResponseMalformedError,
  [McpOutputInvalidError.code]: McpOutputInvalidError,
  [OutputInvalidError.code]: OutputInvalidError,
  [RequestTooLargeError.code]: RequestTooLargeError,
  [RouteNotFoundError.code]: RouteNotFoundError,
  [CrossSiteRequestError.code]: CrossSiteRequestError,
  [CodecUnauthorizedError.code]: CodecUnauthorizedError,
  [CodecFailedError.code]: CodecFailedError,
  [PayloadTooLargeError.code]: PayloadTooLargeError,
  [ToolCallsOverLimitError.code]: ToolCallsOverLimitError,
  [TranscriptFullError.code]: TranscriptFullError,
  [ThreadTerminatedError.code]: ThreadTerminatedError,
  [CodecMissingError.code]: CodecMissingError,
  [HostNotAllowedError.code]: HostNotAllowedError,
  [DeferralChangedError.code]: DeferralChangedError,
  [StreamTransportInvalidError.code]: StreamTransportInvalidError,
} as const satisfies { readonly [K in ErrorCode]: { readonly code: K } };
