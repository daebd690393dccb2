/**
 * The SDK's workflow bundle, built once per test run (test/global-setup.ts) and read back by
 * every harness and child-process worker: bundling takes seconds, reading the file
 * milliseconds. The bundle is too large to travel through vitest's `provide`, so a file
 * holds it and its path travels instead. No vitest here: the child workers import it too.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { WorkflowBundleWithSourceMap } from "@temporalio/worker";
import { bundleAgentWorkflows } from "../src/worker.js";

/** Names the bundle file to the child-process workers a test spawns (test/workers/). */
export const BUNDLE_PATH_ENV = "DURABLE_AGENTS_TEST_BUNDLE";

/** The plain deferrable workflow of examples/plain-workflow, which several files run beside the agents. */
export const PLAIN_WORKFLOWS = fileURLToPath(new URL("../examples/plain-workflow/workflows.ts", import.meta.url));

/**
 * Bundles the agent workflows, with the user workflows at `workflowsPath` if given, into
 * `dir` and returns the file's path.
 */
export async function writeWorkflowBundle(dir: string, workflowsPath?: string): Promise<string> {
  // Named after the user workflows' folder: examples/plain-workflow/workflows.ts → plain-workflow-bundle.json.
  const path = join(dir, workflowsPath ? `${basename(dirname(workflowsPath))}-bundle.json` : "workflow-bundle.json");
  writeFileSync(path, JSON.stringify(await bundleAgentWorkflows(workflowsPath ? { workflowsPath } : {})));
  return path;
}

/** The bundle `writeWorkflowBundle` wrote, for `workflowBundle`. */
export function readWorkflowBundle(path: string): WorkflowBundleWithSourceMap {
  return JSON.parse(readFileSync(path, "utf8")) as WorkflowBundleWithSourceMap;
}

/** The bundle named by BUNDLE_PATH_ENV, if the process was given one; else the worker bundles. */
export function inheritedWorkflowBundle(): { workflowBundle?: WorkflowBundleWithSourceMap } {
  const path = process.env[BUNDLE_PATH_ENV];
  return path ? { workflowBundle: readWorkflowBundle(path) } : {};
}
