// gRPC status codes (stable across gRPC implementations).
const RESOURCE_EXHAUSTED = 8;
const DEADLINE_EXCEEDED = 4;

/**
 * True when Temporal refused a query only because the workflow was busy: while a workflow
 * task runs the server buffers one query per workflow (by default) and refuses the rest
 * with RESOURCE_EXHAUSTED, and a query that waited too long on a busy worker times out.
 * Retrying later is the answer to both.
 */
export function isQueryBusy(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === RESOURCE_EXHAUSTED || code === DEADLINE_EXCEEDED) return true;
    if (e instanceof Error && /query buffer|buffer is full|resource.?exhausted|query.*timed? ?out/i.test(e.message)) return true;
  }
  return false;
}

/** Runs a stream read, retrying with jittered backoff while the workflow is too busy to answer. */
export async function retryWhileBusy<T>(read: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  let delay = 25;
  for (;;) {
    try {
      return await read();
    } catch (err) {
      if (!isQueryBusy(err) || signal?.aborted) throw err;
      await new Promise((resolve) => setTimeout(resolve, delay / 2 + Math.random() * delay));
      delay = Math.min(2000, delay * 2);
    }
  }
}
