/**
 * Starts the one Temporal server every test file shares (see vitest.config.ts) and hands
 * its address to the tests: `inject("temporalAddress")`, `inject("temporalNamespace")`.
 */
import type { TestProject } from "vitest/node";
import { startTemporal } from "../src/testing/index.js";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startTemporal({
    log: (line) => process.stderr.write(`[temporal] ${line}\n`),
  });
  project.provide("temporalAddress", server.address);
  project.provide("temporalNamespace", server.namespace);
  return () => server.stop();
}
