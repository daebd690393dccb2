import { Context } from "@temporalio/activity";
import { ApplicationFailure, CancelledFailure } from "@temporalio/common";
import { APIError } from "openai";
import { DurableAgentsError } from "../src/core/errors/base.js";
import { ModelCallFailedError } from "../src/core/errors/runs.js";

/**
 * Every model of an agent's list failed in one attempt: classified and retried as the last
 * failure, reported with each model's.
 */
export class ModelsOutError extends Error {
  constructor(
    readonly failures: ReadonlyArray<{ model: string; error: unknown }>,
    readonly last: unknown,
  ) {
    super(failures.map(({ model, error }) => `${model}: ${error instanceof Error ? error.message : String(error)}`).join("; "));
    this.name = "ModelsOutError";
  }
}

/**
 * Whether another model may answer what `err` says about this one: an outage (HTTP 408,
 * 429, 5xx, a timeout, a lost connection, anything a retry may fix), never a content error
 * (400, 401, 403, 404, 422, a context overflow, any typed SDK failure), nor a cancel.
 */
export function isOutage(err: unknown): boolean {
  if (stopFailure()) return false;
  return retryable(toActivityFailure(err));
}

/** Statuses a retry cannot fix: bad request, bad credentials, unknown model. */
const FINAL_STATUSES = new Set([400, 401, 403, 404, 422]);

/**
 * What an activity throws for `err`: typed SDK errors become non-retryable failures with
 * their code; provider throttling keeps the provider's `retry-after` as the next delay.
 */
export function toActivityFailure(err: unknown): unknown {
  const stopped = stopFailure();
  if (stopped) return stopped;
  // Every model was out: the last one's failure decides, the message names them all.
  const source = err instanceof ModelsOutError ? err.last : err;
  if (DurableAgentsError.isDurableAgentsError(source)) return source.toFailure();
  const answer = providerAnswer(source);
  if (answer) {
    if (FINAL_STATUSES.has(answer.status)) {
      return new ModelCallFailedError({ status: answer.status, detail: (err as Error).message }).toFailure();
    }
    const delayMs = retryAfterMs(answer.headers);
    return ApplicationFailure.create({
      type: `HTTP${answer.status}`,
      message: (err as Error).message,
      // A zero delay ("retry-after: 0") would end the retries on Temporal's side: the policy's backoff retries it instead.
      ...(delayMs !== undefined && delayMs > 0 ? { nextRetryDelay: delayMs } : {}),
    });
  }
  return err;
}

/**
 * The HTTP status and headers a provider answered with: from the `openai` client's
 * `APIError`, or the AI SDK's `APICallError` (recognised by its name, as `ai` is an
 * optional peer), whatever provider is behind it.
 */
function providerAnswer(err: unknown): { status: number; headers: Headers | undefined } | undefined {
  if (err instanceof APIError && typeof err.status === "number") return { status: err.status, headers: err.headers };
  const e = err as { name?: unknown; statusCode?: unknown; responseHeaders?: unknown } | null;
  if (err instanceof Error && e?.name === "AI_APICallError" && typeof e.statusCode === "number") {
    const raw = e.responseHeaders;
    const headers = typeof raw === "object" && raw !== null ? new Headers(Object.entries(raw).filter((kv): kv is [string, string] => typeof kv[1] === "string")) : undefined;
    return { status: e.statusCode, headers };
  }
  return undefined;
}

/**
 * What a model call throws for `err`: what any activity throws, except that once the
 * call's bounded attempts are spent, what kept failing (429, 5xx, the network) becomes
 * AI1003, for a run and a thread alike.
 */
export function toModelFailure(err: unknown): unknown {
  const failure = toActivityFailure(err);
  // Cancellation and a worker shutting down are no verdict on the model.
  if (stopFailure() || !retryable(failure)) return failure;
  const { attempt, retryPolicy } = Context.current().info;
  const maxAttempts = retryPolicy?.maximumAttempts ?? 0;
  if (maxAttempts <= 0 || attempt < maxAttempts) return failure;
  const answer = providerAnswer(err instanceof ModelsOutError ? err.last : err);
  return new ModelCallFailedError({
    ...(answer ? { status: answer.status } : {}),
    detail: `${err instanceof Error ? err.message : String(err)} (gave up after ${attempt} attempts)`,
  }).toFailure();
}

function retryable(failure: unknown): boolean {
  return failure instanceof ApplicationFailure ? !failure.nonRetryable : !(failure instanceof CancelledFailure);
}

function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = Number(headers?.get("retry-after-ms"));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const raw = headers?.get("retry-after");
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/**
 * When the activity's signal fired: a cancel the workflow asked for reports as
 * cancellation; a worker shutting down reports a retryable failure, so another
 * worker retries the call and the run is not cancelled.
 */
export function stopFailure(): unknown {
  const ctx = Context.current();
  if (!ctx.cancellationSignal.aborted) return undefined;
  const details = ctx.cancellationDetails;
  if (details?.cancelRequested) return new CancelledFailure("the run was cancelled");
  if (details?.workerShutdown) return ApplicationFailure.retryable("the worker shut down during the call", "WorkerShutdown");
  return undefined;
}
