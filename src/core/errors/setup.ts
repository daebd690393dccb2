/** Errors in how the SDK is set up or called: a definition, option or configuration it cannot use, or a call made where it has no meaning. Raised where the mistake is written, before anything runs. */
import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface InvalidDefinitionFields {
  /** What was being defined, e.g. `agent "payouts"` or `tool "askApproval"`. */
  subject: string;
  problem: string;
}

/** AI1001: `defineAgent`, `defineTool` or `createAgentWorker` was given something unusable. */
export class InvalidDefinitionError extends DurableAgentsError<InvalidDefinitionFields> {
  static readonly code = ErrorCode.InvalidDefinition;
  readonly code = ErrorCode.InvalidDefinition;
  constructor(fields: InvalidDefinitionFields) {
    super(`[AI1001] Invalid ${fields.subject}: ${fields.problem}`, fields);
  }
}

export interface AgentNotRegisteredFields {
  agentId: string;
  /** The agent ids the worker does know. */
  registered: string[];
}

/** AI1002: a run names an agent that the worker polling its task queue was not given. */
export class AgentNotRegisteredError extends DurableAgentsError<AgentNotRegisteredFields> {
  static readonly code = ErrorCode.AgentNotRegistered;
  readonly code = ErrorCode.AgentNotRegistered;
  constructor(fields: AgentNotRegisteredFields) {
    super(
      `[AI1002] No agent "${fields.agentId}" is registered on this worker (registered: ${
        fields.registered.join(", ") || "none"
      }). Pass it in createAgentWorker({ agents: [...] }).`,
      fields,
    );
  }
}

export type DeferralSecretFields = { reason: string };

/** RC5040: The deferral secret is missing or shorter than 32 bytes. */
export class DeferralSecretError extends DurableAgentsError<DeferralSecretFields> {
  static readonly code = ErrorCode.DeferralSecretInvalid;
  readonly code = ErrorCode.DeferralSecretInvalid;
  constructor(f: DeferralSecretFields) {
    super(
      `[RC5040] The deferral secret is unusable: ${f.reason}. Set deferral: { secret } on both createAgentWorker and AgentClient to the same random value of at least 32 bytes (e.g. 'openssl rand -base64 48').`,
      f,
    );
  }
}

export type DeferralNotConfiguredFields = { where: string };

/** RC5052: A deferral happened where no deferral configuration exists. */
export class DeferralNotConfiguredError extends DurableAgentsError<DeferralNotConfiguredFields> {
  static readonly code = ErrorCode.DeferralNotConfigured;
  readonly code = ErrorCode.DeferralNotConfigured;
  constructor(f: DeferralNotConfiguredFields) {
    super(
      `[RC5052] ${f.where} tried to defer, but no deferral configuration exists. Add deferral: { secret } (32+ bytes, the same on worker and client) to createAgentWorker().`,
      f,
    );
  }
}

export type DeferOutsideRunFields = { where: string };

/** AI1006: `ctx.defer()` outside a real agent dispatch. */
export class DeferOutsideRunError extends DurableAgentsError<DeferOutsideRunFields> {
  static readonly code = ErrorCode.DeferOutsideRun;
  readonly code = ErrorCode.DeferOutsideRun;
  constructor(f: DeferOutsideRunFields) {
    super(
      `[AI1006] ctx.defer() was called from ${f.where}, which is not an agent run: nothing was deferred. Deferral works only for tool calls an agent run makes.`,
      f,
    );
  }
}

export type DeferInFanOutFields = { where: string };

/** RC5051: A deferral was attempted inside a fan-out. */
export class DeferInFanOutError extends DurableAgentsError<DeferInFanOutFields> {
  static readonly code = ErrorCode.DeferInFanOut;
  readonly code = ErrorCode.DeferInFanOut;
  constructor(f: DeferInFanOutFields) {
    super(
      `[RC5051] Cannot defer from inside ${f.where}: a fan-out branch has no single place to resume. Defer before the fan-out, or after it joins.`,
      f,
    );
  }
}

export type DeferInThreadFields = { threadId: string; toolName: string };

/** AI1023: a tool called `ctx.defer()` during a thread turn; threads do not defer, the turn fails. */
export class DeferInThreadError extends DurableAgentsError<DeferInThreadFields> {
  static readonly code = ErrorCode.DeferInThread;
  readonly code = ErrorCode.DeferInThread;
  constructor(f: DeferInThreadFields) {
    super(
      `[AI1023] Tool "${f.toolName}" called ctx.defer() in thread "${f.threadId}": threads cannot defer, so the turn failed. Run the agent with AgentClient.run() to defer, or make the tool a defineAsyncTool() whose result arrives through addToolResult().`,
      f,
    );
  }
}

export type AsyncToolOutsideThreadFields = { toolName: string; agentId: string };

/** AI1026: an async tool was called by an agent run; async tools only work in threads. */
export class AsyncToolOutsideThreadError extends DurableAgentsError<AsyncToolOutsideThreadFields> {
  static readonly code = ErrorCode.AsyncToolOutsideThread;
  readonly code = ErrorCode.AsyncToolOutsideThread;
  constructor(f: AsyncToolOutsideThreadFields) {
    super(
      `[AI1026] Async tool "${f.toolName}" was called by a run of agent "${f.agentId}": async tools deliver their result through a thread (addToolResult). Use the agent in a thread, or give the run a defineTool() that defers with ctx.defer().`,
      f,
    );
  }
}

export interface ApprovalPolicyFailedFields {
  toolName: string;
  toolCallId: string;
  /** What went wrong: what it threw, or what it answered. */
  problem: string;
}

/**
 * AI1035: a tool's `needsApproval` policy threw, or answered something that is no policy
 * answer. Nobody can tell whether the call may run, so no call of the model's answer runs:
 * the run fails (a thread's turn fails) with this code.
 */
export class ApprovalPolicyFailedError extends DurableAgentsError<ApprovalPolicyFailedFields> {
  static readonly code = ErrorCode.ApprovalPolicyFailed;
  readonly code = ErrorCode.ApprovalPolicyFailed;
  constructor(f: ApprovalPolicyFailedFields) {
    super(
      `[AI1035] The needsApproval policy of tool "${f.toolName}" (call ${f.toolCallId}) ${f.problem}, so no call of that answer ran. A policy answers "allow", "ask", { deny: "<reason>" }, true (ask) or false (allow): catch what it may throw and answer "ask" to have a person decide.`,
      f,
    );
  }
}

export interface CodecMissingFields {
  /** The payload's encoding as Temporal recorded it, e.g. `binary/encrypted`. */
  encoding: string;
  /** What was being read, when known. */
  what?: string;
}

/**
 * AI1046: data this client read is encoded by a payload codec (encrypted, usually) that the
 * client was not given, so it cannot be decoded. Nothing is shown of it.
 */
export class CodecMissingError extends DurableAgentsError<CodecMissingFields> {
  static readonly code = ErrorCode.CodecMissing;
  readonly code = ErrorCode.CodecMissing;
  constructor(f: CodecMissingFields) {
    super(
      `[AI1046] ${f.what ?? "The data"} is encoded as "${f.encoding}" by a payload codec this client does not have. ` +
        `Give the client the same codec as the workers (dataConverter: { payloadCodecs: [...] }), or point the CLI at a codec server with --codec-endpoint.`,
      f,
    );
  }
}

export interface StreamTransportInvalidFields {
  /** The transport's factory, e.g. `redisStreamTransport`. */
  transport: string;
  /** What is wrong with its options, and what to pass instead. */
  problem: string;
}

/**
 * AI1080: a stream transport was given options it cannot use. Thrown by the factory, before
 * any connection is opened, so nothing needs closing.
 */
export class StreamTransportInvalidError extends DurableAgentsError<StreamTransportInvalidFields> {
  static readonly code = ErrorCode.StreamTransportInvalid;
  readonly code = ErrorCode.StreamTransportInvalid;
  constructor(f: StreamTransportInvalidFields) {
    super(`[AI1080] ${f.transport}: ${f.problem}`, f);
  }
}
