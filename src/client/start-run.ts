import { WorkflowExecutionAlreadyStartedError, type Client } from "@temporalio/client";
import type { agentRun } from "../../workflows/runs/agent-run.js";
import { AGENT_RUN_VERSION, type AgentRunInput } from "../core/run-state.js";
import { AgentIdKey } from "../core/search-attributes.js";
import { STREAM_KEY_MEMO } from "../core/stream-key.js";
import { randomKey } from "../stream/direct-proof.js";
import { assertPayloadFits, MAX_PRINCIPAL_BYTES, PRINCIPAL_HINT } from "../core/payload-size.js";

/**
 * What a run's static summary in the Temporal UI shows: `"content"` names the agent and the
 * prompt's first words, `"agent-only"` only the agent.
 */
export type UiSummary = "content" | "agent-only";

const PROMPT_WORDS = 8;
const SUMMARY_CHARS = 100;

/** `payouts: "Pay invoice 42 to ACME before Friday …"`, one line, or `payouts` alone without content. */
export function staticSummaryOf(agentId: string, prompt: string, mode: UiSummary): string {
  const agent = agentId.length > 60 ? `${agentId.slice(0, 59)}…` : agentId;
  if (mode === "agent-only") return `agent ${agent}`;
  const words = prompt.trim().split(/\s+/).filter(Boolean);
  let first = words.slice(0, PROMPT_WORDS).join(" ");
  if (words.length > PROMPT_WORDS) first += " …";
  if (first.length > SUMMARY_CHARS) first = `${first.slice(0, SUMMARY_CHARS - 1)}…`;
  return `agent ${agent}: "${first}"`;
}

/**
 * Starts an agent run under `runId`, or attaches to the run that already has it: the same
 * id while running attaches, the same id after it closed is refused and then attached to.
 * With `onConflict: "fail"` a taken id throws Temporal's `WorkflowExecutionAlreadyStartedError`
 * instead, for a caller that must know whether it started the run (`ctx.dispatch`).
 */
export async function startAgentRun(
  client: Client,
  taskQueue: string,
  runId: string,
  input: Omit<AgentRunInput, "version">,
  options: { uiSummary?: UiSummary; eager?: boolean; memo?: Record<string, unknown>; onConflict?: "attach" | "fail" } = {},
): Promise<void> {
  const attach = options.onConflict !== "fail";
  // Refused here, before anything starts: Temporal would terminate the run over its start input.
  assertPayloadFits(input.prompt, "The run's prompt");
  if (input.principal !== undefined) assertPayloadFits(input.principal, "The run's principal", { limitBytes: MAX_PRINCIPAL_BYTES, hint: PRINCIPAL_HINT });
  assertPayloadFits(input, "The run's start input (prompt, principal and options together)");
  try {
    await client.workflow.start<typeof agentRun>("agentRun", {
      workflowId: runId,
      taskQueue,
      args: [{ ...input, version: AGENT_RUN_VERSION }],
      typedSearchAttributes: [{ key: AgentIdKey, value: input.agentId }],
      // The stream key is what a reader proves to a worker's stream endpoint (src/core/stream-key.ts).
      memo: { ...options.memo, [STREAM_KEY_MEMO]: randomKey() },
      workflowIdConflictPolicy: attach ? "USE_EXISTING" : "FAIL",
      workflowIdReusePolicy: "REJECT_DUPLICATE",
      staticSummary: staticSummaryOf(input.agentId, input.prompt, options.uiSummary ?? "content"),
      ...(options.eager ? { requestEagerStart: true } : {}),
    });
  } catch (err) {
    if (!attach || !(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
