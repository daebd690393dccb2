/**
 * A Temporal dev server of the test file's own, with its `action` counter (what Temporal
 * Cloud bills) exposed, and an agent stack on it: for tests that assert what a piece of work
 * costs. Its own server, so no other file's work is counted.
 */
import { afterAll, beforeAll, inject } from "vitest";
import { actionCounter } from "../bench/actions.js";
import { freePort } from "../bench/lib.js";
import { startTemporal, type TemporalServerHandle } from "../src/testing/index.js";
import { startAgentStack, type AgentStack } from "./agent-stack.js";
import { readWorkflowBundle } from "./workflow-bundle.js";

export type ActionCounter = ReturnType<typeof actionCounter>;

/** Starts the server and the stack before the file's tests (`ready` gets them) and stops both after. */
export function countingStack(ready: (stack: AgentStack, counter: ActionCounter) => void): void {
  let server: TemporalServerHandle | undefined;
  let stack: AgentStack | undefined;
  beforeAll(async () => {
    const metricsPort = await freePort();
    server = await startTemporal({ local: true, metricsPort, log: () => undefined });
    const bundlePath = inject("workflowBundlePath") as string | undefined;
    stack = await startAgentStack({ temporal: server, ...(bundlePath ? { bundle: readWorkflowBundle(bundlePath) } : {}) });
    ready(stack, actionCounter(metricsPort, stack.namespace));
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await server?.stop();
  });
}
