/**
 * Every stable error code, in one place. A code never changes meaning once shipped;
 * across the Temporal wire it travels as the `type` of an `ApplicationFailure`.
 */
export const ErrorCode = {
  /** Deferral secret missing or shorter than 32 bytes. */
  DeferralSecretInvalid: "RC5040",
  /** Resume token malformed or forged. */
  ResumeTokenInvalid: "RC5041",
  /** Payload or meta is not plain JSON. */
  NotPlainJson: "RC5042",
  /** No deferral with that id. */
  DeferralNotFound: "RC5046",
  /** Deferral expired. */
  DeferralExpired: "RC5047",
  /** The agent definition changed while the run was deferred. */
  DefinitionChanged: "RC5048",
  /** Resume payload fails the deferral's schema. */
  ResumePayloadInvalid: "RC5049",
  /** Deferral denied. */
  DeferralDenied: "RC5050",
  /** Defer from inside a fan-out. */
  DeferInFanOut: "RC5051",
  /** A deferral happened where no deferral configuration exists. */
  DeferralNotConfigured: "RC5052",
  /** Cancellation raced the deferral. */
  DeferralCancelled: "RC5054",
  /** The token belongs to a different tool call than the one that won the deferral. */
  ToolCallMismatch: "RC5055",
  /** The authorize hook did not return exactly `true`. */
  ResumeUnauthorized: "RC5056",
  /** An agent or tool definition is invalid. */
  InvalidDefinition: "AI1001",
  /** The run names an agent this worker does not know. */
  AgentNotRegistered: "AI1002",
  /** The model call failed for good (after retries). */
  ModelCallFailed: "AI1003",
  /** The run used all of its `maxTurns`. */
  MaxTurnsExceeded: "AI1004",
  /** The run was cancelled. */
  RunCancelled: "AI1005",
  /** `ctx.defer()` outside a real agent dispatch. */
  DeferOutsideRun: "AI1006",
  /** Stored step state cannot be re-entered. */
  StepStateInvalid: "AI1007",
  /** Thread rewrite refused. */
  ThreadRewriteInvalid: "AI1008",
  /** The prompt exceeds the model's context window. */
  ContextOverflow: "AI1009",
  /** The run id is unknown to the server. */
  RunNotFound: "AI1010",
  /** A dispatched agent's `authorize` refused the principal (e.g. restored, not re-verified). */
  DispatchRefused: "AI1011",
  /** No thread with that id (never created, or deleted). */
  ThreadNotFound: "AI1020",
  /** The threads client's authorize hook did not return exactly `true`. */
  ThreadUnauthorized: "AI1021",
  /** No async tool call with that id waits for a result in the thread. */
  ToolCallNotFound: "AI1022",
  /** `ctx.defer()` inside a thread turn. */
  DeferInThread: "AI1023",
  /** `resumeThread` on a thread with nothing to continue. */
  ThreadNotResumable: "AI1024",
  /** `createThread` with an id that is taken. */
  ThreadAlreadyExists: "AI1025",
  /** An async tool called from an agent run instead of a thread. */
  AsyncToolOutsideThread: "AI1026",
  /** A message that is malformed or breaks the call/result pairing. */
  ThreadMessageInvalid: "AI1027",
  /** The async tool call already has its result. */
  ToolResultDuplicate: "AI1028",
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];
