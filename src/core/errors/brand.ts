/**
 * The mark every SDK error carries, apart from the error classes: code that only asks
 * "is this one of ours?" (the CLI's error report) reads it without loading the classes and
 * the Temporal failure types they build on.
 */

// A symbol from the global registry survives the workflow sandbox's separate realm,
// where `instanceof` against a class from the outer realm is always false.
export const ERROR_BRAND = Symbol.for("durable-agents.error");

/** True for any SDK error from any realm (workflow sandbox, worker, client): `DurableAgentsError.isDurableAgentsError`. */
export function isBranded(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as Record<symbol, unknown>)[ERROR_BRAND] === true;
}
