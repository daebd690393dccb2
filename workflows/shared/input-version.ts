import { MessageMalformedError } from "../../src/core/errors/runs.js";

/**
 * Fails the workflow (AI1012) when its input says a version this code does not know: a run
 * or thread started by a client of another release, or an input written by hand. Guessing
 * at the fields of an unknown shape could run it wrong for days; refusing at its first task
 * costs nothing but the start. Known versions are the ones `workflowType` reads.
 */
export function refuseUnknownVersion(workflowType: string, input: unknown, known: number): void {
  const version = typeof input === "object" && input !== null ? (input as { version?: unknown }).version : undefined;
  if (version === known) return;
  throw new MessageMalformedError({
    request: `${workflowType} start`,
    problem: `its input has version ${JSON.stringify(version) ?? "(none)"}, and this worker reads version ${known} only: start it with a client of this release, or run it on workers of the release whose client started it`,
  }).toFailure();
}
