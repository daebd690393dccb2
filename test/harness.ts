/**
 * Shared test plumbing: the agent stack (test/agent-stack.ts) on the suite's Temporal server,
 * and small helpers.
 */
import { randomUUID } from "node:crypto";
import type { Client } from "@temporalio/client";
import proto from "@temporalio/proto";
import { inject } from "vitest";
import { startAgentStack, TEST_SECRET, type AgentStack } from "./agent-stack.js";
import { bundleAgentWorkflows } from "../src/worker.js";
import { BUNDLE_PATH_ENV, PLAIN_WORKFLOWS, readWorkflowBundle } from "./workflow-bundle.js";

export type { WorkerOverrides } from "./agent-stack.js";
export { tokenFor } from "./agent-stack.js";

/** The secret tests share between workers and clients (32+ bytes). */
export const SECRET = TEST_SECRET;

// The run's one workflow bundle, built by global-setup: read once per test file, and named to
// the child-process workers (test/workers/) a test spawns, which inherit this environment.
// (A config without that global setup leaves each harness to bundle for itself.)
const bundlePath = inject("workflowBundlePath") as string | undefined;
if (bundlePath) process.env[BUNDLE_PATH_ENV] = bundlePath;
let bundle: Harness["bundle"] | undefined;

let plainBundle: Promise<Harness["bundle"]> | undefined;

/**
 * The agent workflows with examples/plain-workflow's `expenseApproval` beside them, as
 * `bundleAgentWorkflows({ workflowsPath })` builds them: read from global-setup's build when
 * there is one.
 */
export function plainWorkflowBundle(): Promise<Harness["bundle"]> {
  const path = inject("plainWorkflowBundlePath") as string | undefined;
  return (plainBundle ??= path ? Promise.resolve(readWorkflowBundle(path)) : bundleAgentWorkflows({ workflowsPath: PLAIN_WORKFLOWS }));
}

/** Closing it leaves the shared server running. */
export type Harness = AgentStack;

export async function startHarness(): Promise<Harness> {
  if (bundlePath) bundle ??= readWorkflowBundle(bundlePath);
  return startAgentStack({ temporal: { address: inject("temporalAddress"), namespace: inject("temporalNamespace") }, ...(bundle ? { bundle } : {}) });
}

export const uid = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

/** Narrows a run's settled state to a completed result; fails the test on a deferral. */
export async function completed<T extends { status: string }>(settled: Promise<T>): Promise<Extract<T, { status: "completed" }>> {
  const value = await settled;
  if (value.status !== "completed") throw new Error(`expected the run to complete, it settled as ${JSON.stringify(value)}`);
  return value as Extract<T, { status: "completed" }>;
}

/**
 * The failed workflow tasks in an execution's history: each one a task Temporal retries
 * until it passes. Left out: tasks the server closed itself to flush events that completed
 * while they ran (over 100 at once, as a large batch of tool calls does), which say nothing
 * about the workflow's code.
 */
export async function workflowTaskFailures(client: Client, workflowId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const failed = e.workflowTaskFailedEventAttributes;
    if (!failed || failed.cause === proto.temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND) return [];
    return [`${failed.cause ?? "?"}: ${failed.failure?.message ?? "(no message)"}`];
  });
}
