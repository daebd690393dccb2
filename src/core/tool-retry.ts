/**
 * Retry settings of a sync tool, and the backoff they produce. Pure and sandbox-safe:
 * `defineTool` validates with it, the thread tool activity computes delays with it.
 */
import type { Duration } from "@temporalio/common";
import { delayMs } from "./duration.js";
import { InvalidDefinitionError } from "./errors/setup.js";

/** Always the same wait between attempts. */
export interface FixedBackoff {
  strategy?: "fixed";
  /** Wait before each retry, e.g. `"1s"` (a number is milliseconds). */
  delay: Duration;
  /** Wait a random time between 0 and `delay` instead ("full jitter"), so retries of many calls spread out. Default false. */
  jitter?: boolean;
}

/** A wait that grows by `multiplier` after every failed attempt, up to `maxDelay`. */
export interface ExponentialBackoff {
  strategy: "exponential";
  /** Wait before the first retry, e.g. `"250ms"` (a number is milliseconds). */
  initialDelay: Duration;
  /** Growth per attempt. Default 2. */
  multiplier?: number;
  /** Ceiling of the wait. Default: none. */
  maxDelay?: Duration;
  /** Wait a random time between 0 and the computed delay instead ("full jitter"). Default false. */
  jitter?: boolean;
}

export type ToolBackoff = FixedBackoff | ExponentialBackoff;

/** What `shouldRetryError` learns about a failed attempt. */
export interface RetryErrorInfo {
  /** Set for a thread turn's call. */
  threadId?: string;
  /** Set for an agent run's call. */
  runId?: string;
  toolCallId: string;
  toolName: string;
  /** The parsed arguments the handler was called with. */
  args: unknown;
  /** What the handler threw. */
  error: unknown;
  /** The attempt that failed (1 on the first). */
  attempt: number;
  maxAttempts: number;
}

export interface ToolRetryOptions {
  /** Attempts in all, the first included. Default 3. */
  maxAttempts?: number;
  /** Default: exponential from 250 ms, ×2, at most 4 s, with jitter. */
  backoff?: ToolBackoff;
  /**
   * Decides whether a failure is worth another attempt: truthy retries, falsy gives the
   * model the error at once. Runs on the worker. A hook that throws counts as falsy.
   * Default: every error is retried (Temporal's own default).
   */
  shouldRetryError?: (info: RetryErrorInfo) => unknown;
}

/** `true` for the defaults (3 attempts, exponential backoff with jitter), or the settings. */
export type ToolRetry = boolean | ToolRetryOptions;

export interface ResolvedToolRetry {
  maxAttempts: number;
  backoff: { strategy: "fixed"; delayMs: number; jitter: boolean } | { strategy: "exponential"; initialDelayMs: number; multiplier: number; maxDelayMs?: number; jitter: boolean };
  shouldRetryError?: ToolRetryOptions["shouldRetryError"];
}

export const DEFAULT_MAX_ATTEMPTS = 3;
export const DEFAULT_BACKOFF: ExponentialBackoff = { strategy: "exponential", initialDelay: "250ms", multiplier: 2, maxDelay: "4s", jitter: true };

/** The settings with defaults filled in; undefined when retry is off. Throws AI1001 on nonsense. */
export function resolveToolRetry(retry: ToolRetry | undefined, subject: string): ResolvedToolRetry | undefined {
  if (retry === undefined || retry === false) return undefined;
  const bad = (problem: string) => new InvalidDefinitionError({ subject, problem: `retry: ${problem}` });
  if (retry === true) return { maxAttempts: DEFAULT_MAX_ATTEMPTS, backoff: resolveBackoff(DEFAULT_BACKOFF, bad) };
  if (typeof retry !== "object" || retry === null) throw bad("pass true or { maxAttempts, backoff, shouldRetryError }");
  const maxAttempts = retry.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw bad("maxAttempts must be a positive integer");
  if (retry.shouldRetryError !== undefined && typeof retry.shouldRetryError !== "function") {
    throw bad("shouldRetryError must be a function");
  }
  return {
    maxAttempts,
    backoff: resolveBackoff(retry.backoff ?? DEFAULT_BACKOFF, bad),
    ...(retry.shouldRetryError ? { shouldRetryError: retry.shouldRetryError } : {}),
  };
}

function resolveBackoff(backoff: ToolBackoff, bad: (problem: string) => Error): ResolvedToolRetry["backoff"] {
  const ms = (value: unknown, name: string) => {
    try {
      return delayMs(value as Duration, name);
    } catch {
      throw bad(`backoff.${name} must be a duration, like "250ms" or a number of milliseconds ≥ 0`);
    }
  };
  if (backoff?.strategy === "exponential") {
    const multiplier = backoff.multiplier ?? 2;
    if (typeof multiplier !== "number" || !Number.isFinite(multiplier) || multiplier < 1) throw bad("multiplier must be a number ≥ 1");
    return {
      strategy: "exponential",
      initialDelayMs: ms(backoff.initialDelay, "initialDelay"),
      multiplier,
      ...(backoff.maxDelay !== undefined ? { maxDelayMs: ms(backoff.maxDelay, "maxDelay") } : {}),
      jitter: backoff.jitter ?? false,
    };
  }
  if (backoff?.strategy !== undefined && backoff.strategy !== "fixed") throw bad('backoff.strategy must be "fixed" or "exponential"');
  return { strategy: "fixed", delayMs: ms((backoff as FixedBackoff)?.delay, "delay"), jitter: (backoff as FixedBackoff).jitter ?? false };
}

/**
 * The wait after failed attempt `attempt` (1-based). With jitter, a uniform draw in
 * [0, delay] ("full jitter"): retries of many calls that failed together spread out.
 */
export function backoffDelayMs(attempt: number, backoff: ResolvedToolRetry["backoff"], random: () => number = Math.random): number {
  let delay: number;
  if (backoff.strategy === "fixed") {
    delay = backoff.delayMs;
  } else {
    delay = backoff.initialDelayMs * backoff.multiplier ** Math.max(0, attempt - 1);
    if (backoff.maxDelayMs !== undefined) delay = Math.min(delay, backoff.maxDelayMs);
  }
  return Math.round(backoff.jitter ? random() * delay : delay);
}
