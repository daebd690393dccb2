/** Errors of what is served over HTTP: the front door's requests, the codec server, the MCP server's tools and the browser's chat client. */
import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface RequestMalformedFields {
  /** Where the problem is: `body`, `query`, `param`, `header`, or a field path inside one. */
  where: string;
  problem: string;
}

/** AI1040: the HTTP front door could not read the request (malformed JSON, wrong types, bad ids). Nothing was done. */
export class RequestMalformedError extends DurableAgentsError<RequestMalformedFields> {
  static readonly code = ErrorCode.RequestMalformed;
  readonly code = ErrorCode.RequestMalformed;
  constructor(fields: RequestMalformedFields) {
    super(`[AI1040] Malformed request (${fields.where}): ${fields.problem}. Nothing was done.`, fields);
  }
}

export interface RequestTooLargeFields {
  /** The limit in bytes the body went over. */
  limitBytes: number;
}

/** AI1041: an HTTP request body went over the front door's size limit. Nothing was read or done. */
export class RequestTooLargeError extends DurableAgentsError<RequestTooLargeFields> {
  static readonly code = ErrorCode.RequestTooLarge;
  readonly code = ErrorCode.RequestTooLarge;
  constructor(fields: RequestTooLargeFields) {
    super(`[AI1041] The request body is larger than ${fields.limitBytes} bytes. Nothing was done.`, fields);
  }
}

export interface RouteNotFoundFields {
  method: string;
  path: string;
}

/** AI1042: the HTTP front door has no route with that method and path. */
export class RouteNotFoundError extends DurableAgentsError<RouteNotFoundFields> {
  static readonly code = ErrorCode.RouteNotFound;
  readonly code = ErrorCode.RouteNotFound;
  constructor(fields: RouteNotFoundFields) {
    super(`[AI1042] No route ${fields.method} ${fields.path}.`, fields);
  }
}

export interface CrossSiteRequestFields {
  /** The request's `Origin` header, when it sent one. */
  origin?: string;
}

/** AI1043: a state-changing request came from another site (a forged form post); refused before anything ran. */
export class CrossSiteRequestError extends DurableAgentsError<CrossSiteRequestFields> {
  static readonly code = ErrorCode.CrossSiteRequest;
  readonly code = ErrorCode.CrossSiteRequest;
  constructor(fields: CrossSiteRequestFields) {
    super(`[AI1043] Cross-site request refused${fields.origin ? ` (Origin ${fields.origin})` : ""}. Nothing was done.`, fields);
  }
}

export interface HostNotAllowedFields {
  /** The header that was refused. */
  header: "host" | "origin";
  /** Its value, as sent (absent when it was missing). */
  value?: string;
}

/**
 * AI1047: an HTTP request named a host or origin the server does not serve (DNS
 * rebinding: a foreign web page reaching a local server). Refused before anything ran.
 */
export class HostNotAllowedError extends DurableAgentsError<HostNotAllowedFields> {
  static readonly code = ErrorCode.HostNotAllowed;
  readonly code = ErrorCode.HostNotAllowed;
  constructor(f: HostNotAllowedFields) {
    super(
      `[AI1047] ${f.header === "host" ? "Host" : "Origin"} ${f.value === undefined ? "missing" : JSON.stringify(f.value)} is not allowed by this server. Nothing was done. ` +
        `Serve it on an allowed host, or add it to the server's allowedHosts / allowedOrigins.`,
      f,
    );
  }
}

export interface CodecUnauthorizedFields {
  /** `encode` or `decode`. */
  operation: string;
}

/** AI1044: the codec server's `authorize` hook did not return exactly `true`; nothing was encoded or decoded. */
export class CodecUnauthorizedError extends DurableAgentsError<CodecUnauthorizedFields> {
  static readonly code = ErrorCode.CodecUnauthorized;
  readonly code = ErrorCode.CodecUnauthorized;
  constructor(fields: CodecUnauthorizedFields) {
    super(`[AI1044] Not authorized to ${fields.operation} payloads. Nothing was ${fields.operation}d.`, fields);
  }
}

export interface CodecFailedFields {
  /** `encode` or `decode`. */
  operation: string;
  /** Which payload of the request (0-based), when one could be singled out. */
  index?: number;
}

/**
 * AI1045: the codec server could not encode or decode a payload (encrypted with a key it
 * does not hold, tampered with, not ours). The message names no key and no bytes: the
 * caller learns only that the request failed.
 */
export class CodecFailedError extends DurableAgentsError<CodecFailedFields> {
  static readonly code = ErrorCode.CodecFailed;
  readonly code = ErrorCode.CodecFailed;
  constructor(fields: CodecFailedFields) {
    super(`[AI1045] The payloads could not be ${fields.operation}d${fields.index !== undefined ? ` (payload ${fields.index})` : ""}. Nothing was ${fields.operation}d.`, fields);
  }
}

export interface ChatResponseMalformedFields {
  /** What was being read: `event stream`, `GET /threads/:id`, … */
  where: string;
  problem: string;
}

/**
 * AI1060: a chat client got something from the front door it cannot read (an event that
 * is not a stream entry, an answer that is not the route's JSON). Nothing of it was
 * applied; the client keeps what it had and reads again from the last entry it applied.
 */
export class ChatResponseMalformedError extends DurableAgentsError<ChatResponseMalformedFields> {
  static readonly code = ErrorCode.ChatResponseMalformed;
  readonly code = ErrorCode.ChatResponseMalformed;
  constructor(fields: ChatResponseMalformedFields) {
    super(`[AI1060] Unreadable answer from the front door (${fields.where}): ${fields.problem}. Nothing of it was applied.`, fields);
  }
}

export interface McpOutputInvalidFields {
  /** The MCP tool whose run answered. */
  tool: string;
  runId: string;
  problem: string;
}

/**
 * AI1070: an agent served as an MCP tool finished, but its answer is not what the tool's
 * `output` schema promises. The run itself completed; the MCP caller gets `isError: true`
 * instead of structured content its client would reject.
 */
export class McpOutputInvalidError extends DurableAgentsError<McpOutputInvalidFields> {
  static readonly code = ErrorCode.McpOutputInvalid;
  readonly code = ErrorCode.McpOutputInvalid;
  constructor(fields: McpOutputInvalidFields) {
    super(`[AI1070] The answer of run ${fields.runId} (MCP tool "${fields.tool}") does not match the tool's output schema: ${fields.problem}.`, fields);
  }
}

export interface ConsoleSignInRequiredFields {
  /** The console page that was asked for. */
  path: string;
}

/** AI1049: the console was asked for without a principal (`authenticate` returned none). Nothing was read or shown. */
export class ConsoleSignInRequiredError extends DurableAgentsError<ConsoleSignInRequiredFields> {
  static readonly code = ErrorCode.ConsoleSignInRequired;
  readonly code = ErrorCode.ConsoleSignInRequired;
  constructor(fields: ConsoleSignInRequiredFields) {
    super(`[AI1049] The console shows runs and threads to signed-in callers only, and this request carried no credential the server recognised. Nothing was shown: sign in, then open it again.`, fields);
  }
}
