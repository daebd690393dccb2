import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

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
