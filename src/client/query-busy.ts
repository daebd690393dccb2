// gRPC status code (stable across gRPC implementations).
const RESOURCE_EXHAUSTED = 8;

/**
 * True when a stream query was refused only because the workflow was busy: while a
 * workflow task runs the server buffers one query per workflow (by default) and refuses
 * the rest with RESOURCE_EXHAUSTED. Trying again a moment later is the answer.
 */
export function isQueryBusy(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === RESOURCE_EXHAUSTED) return true;
  }
  return false;
}
