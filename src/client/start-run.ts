import { WorkflowExecutionAlreadyStartedError, type Client } from "@temporalio/client";
import type { agentRun } from "../../workflows/runs/agent-run.js";
import { AGENT_RUN_VERSION, type AgentRunInput } from "../core/run-state.js";
import { AgentIdKey } from "../core/search-attributes.js";
import { STREAM_KEY_MEMO } from "../core/stream-key.js";
import { randomKey } from "../stream/direct-proof.js";
import type { Duration } from "@temporalio/common";
import { durationMs } from "../core/duration.js";
import { InvalidDefinitionError } from "../core/errors/setup.js";
import type { Principal } from "../core/json.js";
import { plainJsonProblem } from "../core/json-check.js";
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

/** What a run's start input is made of, as `start` and a schedule's action take it (see `RunOptions`). */
export interface RunInputOptions {
  prompt: string;
  principal?: Principal;
  timeout?: Duration;
  maxHistoryEvents?: number;
  stream?: boolean;
}

/**
 * A run's start input from the caller's options, checked: AI1001 naming the run for a prompt
 * that is not a string, a principal that is not plain JSON, a bad timeout or history limit.
 * Nothing is started by it.
 */
export function runInputOf(agentId: string, options: RunInputOptions): Omit<AgentRunInput, "version"> {
  const subject = `run of agent "${agentId}"`;
  if (typeof options?.prompt !== "string") {
    throw new InvalidDefinitionError({ subject, problem: "prompt must be a string" });
  }
  if (options.stream !== undefined && typeof options.stream !== "boolean") {
    throw new InvalidDefinitionError({ subject, problem: "stream must be true or false" });
  }
  const principalProblem = options.principal === undefined ? undefined : plainJsonProblem(options.principal);
  if (principalProblem) {
    throw new InvalidDefinitionError({ subject, problem: `principal is not plain JSON at ${principalProblem.path}` });
  }
  const input: Omit<AgentRunInput, "version"> = {
    agentId,
    prompt: options.prompt,
    ...(options.principal ? { principal: options.principal } : {}),
    ...(options.timeout !== undefined ? { timeoutMs: durationMs(options.timeout, `${subject} timeout`, "7d") } : {}),
    ...(options.maxHistoryEvents !== undefined ? { maxHistoryEvents: historyEventsOf(options.maxHistoryEvents, subject) } : {}),
    ...(options.stream ? { stream: true } : {}),
  };
  return input;
}

/** AI1016 for a prompt, principal or whole input over one payload: Temporal would terminate the run over its start input. */
export function assertRunInputFits(input: Omit<AgentRunInput, "version">): void {
  assertPayloadFits(input.prompt, "The run's prompt");
  if (input.principal !== undefined) assertPayloadFits(input.principal, "The run's principal", { limitBytes: MAX_PRINCIPAL_BYTES, hint: PRINCIPAL_HINT });
  assertPayloadFits(input, "The run's start input (prompt, principal and options together)");
}

/** `maxHistoryEvents`, checked: a whole number of at least 100 (fewer would continue as new every turn). */
function historyEventsOf(value: unknown, subject: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 100) {
    throw new InvalidDefinitionError({ subject, problem: "maxHistoryEvents must be a whole number of at least 100" });
  }
  return value;
}

/** A `uiSummary` as given, or AI1001: a typo must not quietly show prompts. */
export function uiSummaryOf(mode: UiSummary | undefined, subject: string): UiSummary {
  if (mode === undefined || mode === "content" || mode === "agent-only") return mode ?? "content";
  throw new InvalidDefinitionError({ subject, problem: `uiSummary must be "content" or "agent-only", not ${JSON.stringify(mode)}` });
}

/**
 * What Temporal is given to start a run, beside its id and task queue: the one place that
 * says what a run carries, so a run a schedule starts is the run `start` makes (same input,
 * search attributes, memo and summary). `streamKey` is the memo's stream key
 * (src/core/stream-key.ts).
 */
export function runStartFields(input: Omit<AgentRunInput, "version">, options: { uiSummary?: UiSummary; streamKey: string; memo?: Record<string, unknown> }) {
  return {
    args: [{ ...input, version: AGENT_RUN_VERSION }] as [AgentRunInput],
    typedSearchAttributes: [{ key: AgentIdKey, value: input.agentId }],
    memo: { ...options.memo, [STREAM_KEY_MEMO]: options.streamKey },
    staticSummary: staticSummaryOf(input.agentId, input.prompt, options.uiSummary ?? "content"),
  };
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
  assertRunInputFits(input);
  try {
    await client.workflow.start<typeof agentRun>("agentRun", {
      workflowId: runId,
      taskQueue,
      // The stream key is what a reader proves to a worker's stream endpoint (src/core/stream-key.ts).
      ...runStartFields(input, { streamKey: randomKey(), ...(options.uiSummary ? { uiSummary: options.uiSummary } : {}), ...(options.memo ? { memo: options.memo } : {}) }),
      workflowIdConflictPolicy: attach ? "USE_EXISTING" : "FAIL",
      workflowIdReusePolicy: "REJECT_DUPLICATE",
      ...(options.eager ? { requestEagerStart: true } : {}),
    });
  } catch (err) {
    if (!attach || !(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
