/**
 * The error Temporal's client throws from a retry timer that `Connection.close()` does not
 * clear, when that timer fires after the close ("Channel has been shut down", from
 * `grpc-retry`): a call that failed with a retryable status just before the close is retried
 * on a channel that no longer exists. Harmless once the caller is done with that connection;
 * the benches and the test runner let it pass and nothing else.
 */
export function isStrayClientRetry(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const { message, stack } = err as { message?: unknown; stack?: unknown };
  return message === "Channel has been shut down" && typeof stack === "string" && /grpc-retry/.test(stack);
}
