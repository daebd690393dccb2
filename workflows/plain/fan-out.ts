import { CancellationScope } from "@temporalio/workflow";

// Scopes that run fan-out branches. Checked by walking up from the current scope, so work
// started inside a branch, however deep, knows it is in one.
const branches = new WeakSet<CancellationScope>();

/**
 * Runs `fn` for every item in parallel and returns the results in order. Deferral is
 * refused inside a branch (RC5051): a branch has no single place a resume could land.
 */
export function fanOut<T, R>(items: readonly T[], fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  return Promise.all(
    items.map((item, index) => {
      const scope = new CancellationScope();
      branches.add(scope);
      return scope.run(() => fn(item, index));
    }),
  );
}

/** Whether the calling code runs inside a `fanOut()` branch. */
export function inFanOut(): boolean {
  for (let scope: CancellationScope | undefined = CancellationScope.current(); scope; scope = scope.parent) {
    if (branches.has(scope)) return true;
  }
  return false;
}
