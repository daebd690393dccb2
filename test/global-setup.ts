/**
 * Starts the one Temporal server every test file shares (see vitest.config.ts) and hands
 * its address to the tests: `inject("temporalAddress")`, `inject("temporalNamespace")`.
 * Meanwhile it bundles the agent workflows once for the whole run (test/workflow-bundle.ts):
 * every harness and child worker reads that file instead of bundling again; and once more
 * with the plain workflow example beside them, for the files that run it
 * (`plainWorkflowBundle`). And it compiles the package as it ships (test/cli-build.ts), for
 * the tests that spawn the `durable-agents` command: once for the run, before any file
 * starts (two files compiling into one folder would remove the command under each other's
 * feet), and only when a source changed since the last run's compile.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { startTemporal } from "../src/testing/index.js";
import { compilePackage } from "./cli-build.js";
import { PLAIN_WORKFLOWS, writeWorkflowBundle } from "./workflow-bundle.js";

/** Where the command is compiled to (in the repository, so that its imports find node_modules). */
const CLI_ARTIFACTS = fileURLToPath(new URL("../test-artifacts/cli", import.meta.url));

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), "durable-agents-bundle-"));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  const [server, bundle, plainBundle, compiled] = await Promise.allSettled([
    startTemporal({ log: (line) => process.stderr.write(`[temporal] ${line}\n`) }),
    writeWorkflowBundle(dir),
    writeWorkflowBundle(dir, PLAIN_WORKFLOWS),
    (async () => compilePackage(`${CLI_ARTIFACTS}/dist`, { reuse: true }))(),
  ]);
  if (server.status === "rejected" || bundle.status === "rejected" || plainBundle.status === "rejected" || compiled.status === "rejected") {
    if (server.status === "fulfilled") await server.value.stop();
    removeDir();
    throw [server, bundle, plainBundle, compiled].flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []))[0];
  }
  project.provide("temporalAddress", server.value.address);
  project.provide("temporalNamespace", server.value.namespace);
  project.provide("workflowBundlePath", bundle.value);
  project.provide("plainWorkflowBundlePath", plainBundle.value);
  project.provide("cliArtifacts", CLI_ARTIFACTS);
  return async () => {
    await server.value.stop();
    removeDir();
  };
}
