import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { DurableAgentsError } from "../core/errors/base.js";
import { codeInfo } from "../core/errors/codes.js";
import { CrossSiteRequestError, RequestMalformedError, RequestTooLargeError } from "../core/errors/http.js";

/** The body of every error response. */
export interface ErrorBody {
  /** `retryLater`: nothing changed and the same request may succeed shortly (it also sets `Retry-After`). */
  error: { code: string; message: string; retryLater?: true };
}

/**
 * Turns whatever a route threw into the typed error it answers with: SDK errors as they
 * are, Hono's own refusals (unreadable JSON, CSRF) as their codes, anything else undefined.
 */
export function typedError(err: unknown, c: Context, maxBodyBytes: number): DurableAgentsError | undefined {
  if (DurableAgentsError.isDurableAgentsError(err)) return err;
  if (err instanceof HTTPException) {
    if (err.status === 403) return new CrossSiteRequestError({ ...(c.req.header("origin") ? { origin: c.req.header("origin")! } : {}) });
    if (err.status === 413) return new RequestTooLargeError({ limitBytes: maxBodyBytes });
    if (err.status === 400) return new RequestMalformedError({ where: "body", problem: err.message || "unreadable" });
  }
  return undefined;
}

/** `{ error: { code, message } }` with the status the code table gives the code. */
export function errorResponse(c: Context, err: DurableAgentsError): Response {
  const retryLater = (err.fields as { retryLater?: unknown }).retryLater === true;
  if (retryLater) c.header("Retry-After", "1");
  return c.json(
    { error: { code: err.code, message: err.message, ...(retryLater ? { retryLater: true as const } : {}) } } satisfies ErrorBody,
    codeInfo(err.code).http as ContentfulStatusCode,
  );
}

/** What an unexpected failure answers with: no message or stack of ours reaches the caller. */
export function internalErrorResponse(c: Context): Response {
  return c.json({ error: { code: "internal", message: "Internal error; nothing about it is shown here (see the server's log)." } } satisfies ErrorBody, 500);
}
