import type { ValidationTargets } from "hono";
import { validator } from "hono/validator";
import { z } from "zod";
import { RequestMalformedError } from "../core/errors/http.js";

/**
 * Ids in paths and bodies: what Temporal accepts as a workflow id (at most 1,000 bytes; we
 * also refuse control characters), so a hostile id is refused here with AI1040 instead
 * of reaching the server. `__proto__` and friends are ordinary ids: nothing indexes an
 * object with them.
 */
export const Id = z
  .string()
  .min(1, "must not be empty")
  .max(1000, "is longer than 1000 characters")
  .regex(/^[^\u0000-\u001f\u007f]+$/, "must not contain control characters");

/** A page size given as a query parameter. */
export const PageSize = (max: number) => z.coerce.number().int("must be an integer").min(1).max(max);

/** An offset cursor as the list routes hand it out. */
export const OffsetCursor = z.string().regex(/^\d{1,9}$/, "is not a cursor this route returned");

/** A visibility page token as the listing routes hand it out (base64url). */
export const PageToken = z.string().max(4096).regex(/^[A-Za-z0-9_-]*$/, "is not a token this route returned");

/** Any plain JSON value (what a parsed body holds), but present. */
export const JsonPresent = z.unknown().refine((v) => v !== undefined, "is required");

/**
 * A request part checked against a zod schema, answering a failure with AI1040 naming the
 * first problem. JSON bodies also need `Content-Type: application/json`: a body sent as a
 * form or text would otherwise be read as empty. Built on the `hono` this package depends
 * on, never on one a helper package resolves: an app with its own copy of `hono` beside
 * ours (another version) would otherwise throw an unreadable body as that copy's
 * HTTPException, which the front door does not know, and answer 500 instead of AI1040.
 */
export function valid<Target extends keyof ValidationTargets, Schema extends z.ZodType>(target: Target, schema: Schema) {
  return validator(target, async (value, c): Promise<z.output<Schema>> => {
    if (target === "json" && !/^application\/([\w.-]+\+)?json\b/i.test(c.req.header("content-type") ?? "")) {
      throw new RequestMalformedError({ where: "header content-type", problem: "send the body as application/json" });
    }
    const result = await schema.safeParseAsync(value);
    if (!result.success) {
      const issue = result.error.issues[0];
      const path = issue && issue.path.length > 0 ? `${target}.${issue.path.map(String).join(".")}` : target;
      throw new RequestMalformedError({ where: path, problem: issue?.message ?? "invalid" });
    }
    return result.data;
  });
}
