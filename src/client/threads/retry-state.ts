import type { Client } from "@temporalio/client";
import type { temporal } from "@temporalio/proto";
import { timestampMs } from "../../core/duration.js";

/** Where a retried call stands, read from Temporal's pending activity (no history involved). */
export interface RetryState {
  /** The attempt running now, or waiting to run (2 is the first retry). */
  attempt: number;
  /** Attempts allowed in all; absent when unlimited. */
  maxAttempts?: number;
  /** Why the previous attempt failed: the error type (e.g. `HTTP429`) and message. */
  lastError?: { type?: string; message: string };
  /** When the next attempt starts, while it waits. */
  nextAttemptAt?: string;
  /** How long Temporal waits before that attempt: the tool's backoff, or the provider's retry-after. */
  delayMs?: number;
}

/** Retry state of one pending activity, or undefined when it is on its first attempt and has not failed. */
export function retryStateOf(info: temporal.api.workflow.v1.IPendingActivityInfo, client: Client): RetryState | undefined {
  const attempt = info.attempt ?? 1;
  const failure = info.lastFailure;
  if (attempt <= 1 && !failure) return undefined;
  const nextAt = timestampMs(info.nextAttemptScheduleTime);
  const failedAt = timestampMs(info.lastAttemptCompleteTime);
  const detailed = detailsOf(failure, client);
  const delayMs = detailed?.delayMs ?? (nextAt !== undefined && failedAt !== undefined ? nextAt - failedAt : undefined);
  return {
    attempt,
    ...(detailed?.maxAttempts ? { maxAttempts: detailed.maxAttempts } : info.maximumAttempts ? { maxAttempts: info.maximumAttempts } : {}),
    ...(failure
      ? { lastError: { ...(failure.applicationFailureInfo?.type ? { type: failure.applicationFailureInfo.type } : {}), message: failure.message ?? "" } }
      : {}),
    ...(nextAt !== undefined ? { nextAttemptAt: new Date(nextAt).toISOString() } : {}),
    ...(delayMs !== undefined ? { delayMs } : {}),
  };
}

/** A tool's retried attempt names its backoff in the failure details (see the thread tool activity). */
function detailsOf(failure: temporal.api.failure.v1.IFailure | null | undefined, client: Client): { delayMs?: number; maxAttempts?: number } | undefined {
  const payload = failure?.applicationFailureInfo?.details?.payloads?.[0];
  if (!payload) return undefined;
  try {
    const value = client.options.loadedDataConverter.payloadConverter.fromPayload<unknown>(payload);
    if (typeof value !== "object" || value === null) return undefined;
    const { delayMs, maxAttempts } = value as { delayMs?: unknown; maxAttempts?: unknown };
    return {
      ...(typeof delayMs === "number" ? { delayMs } : {}),
      ...(typeof maxAttempts === "number" ? { maxAttempts } : {}),
    };
  } catch {
    return undefined;
  }
}
