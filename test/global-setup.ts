/**
 * Starts the one Temporal server every test file shares (see vitest.config.ts) and hands
 * its address to the tests: `inject("temporalAddress")`, `inject("temporalNamespace")`.
 * Meanwhile it bundles the agent workflows once for the whole run (test/workflow-bundle.ts):
 * every harness and child worker reads that file instead of bundling again.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startTemporal } from "../src/testing/index.js";
import { writeWorkflowBundle } from "./workflow-bundle.js";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), "durable-agents-bundle-"));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  const [server, bundle] = await Promise.allSettled([
    startTemporal({ log: (line) => process.stderr.write(`[temporal] ${line}\n`) }),
    writeWorkflowBundle(dir),
  ]);
  if (server.status === "rejected" || bundle.status === "rejected") {
    if (server.status === "fulfilled") await server.value.stop();
    removeDir();
    throw server.status === "rejected" ? server.reason : (bundle as PromiseRejectedResult).reason;
  }
  project.provide("temporalAddress", server.value.address);
  project.provide("temporalNamespace", server.value.namespace);
  project.provide("workflowBundlePath", bundle.value);
  return async () => {
    await server.value.stop();
    removeDir();
  };
}
