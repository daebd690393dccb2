import type { Duration } from "@temporalio/common";
import type { z } from "zod";
import type { JsonObject } from "./json.js";

const SENTINEL = Symbol.for("durable-agents.defer");

/** What `ctx.defer()` (or `DeferError`) takes. */
export interface DeferOptions {
  /**
   * What a valid resume payload looks like: a zod schema or a JSON Schema object. It is
   * persisted as JSON Schema on the record, shown on the acknowledgment, and checked at
   * resume (RC5049).
   */
  schema?: z.ZodType | JsonObject;
  /** How long the deferral stays resumable. Defaults to the worker's `deferral.defaultTtl` (72h). */
  ttl?: Duration;
  /**
   * Whatever the resume's authorize hook needs to decide who may resume (required roles,
   * four-eyes …). Plain JSON, kept on the record, never put on the acknowledgment.
   */
  meta?: JsonObject;
}

/** What a handler returns to defer the run. Only `ctx.defer()` makes one. */
export interface DeferSignal {
  readonly [SENTINEL]: true;
  readonly options: DeferOptions;
}

export function deferSignal(options: DeferOptions = {}): DeferSignal {
  return Object.freeze({ [SENTINEL]: true as const, options });
}

/** Realm-safe check for a returned `ctx.defer()` sentinel. */
export function isDeferSignal(value: unknown): value is DeferSignal {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[SENTINEL] === true;
}

/**
 * Thrown instead of returning `ctx.defer()`, for handlers that cannot return a value
 * out of where they decide. Prefer the sentinel: a `try/catch` in the handler swallows
 * this and hands the model a garbage tool result.
 */
export class DeferError extends Error {
  readonly [SENTINEL] = true as const;
  constructor(readonly options: DeferOptions = {}) {
    super("The tool deferred the run");
    this.name = "DeferError";
  }

  static isInstance(err: unknown): err is DeferError {
    return err instanceof Error && (err as unknown as Record<symbol, unknown>)[SENTINEL] === true;
  }
}
