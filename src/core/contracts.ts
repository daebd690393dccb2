/**
 * The contract between the agent workflow and its activities. Types only: the workflow
 * bundle must not pull activity code (or Node) into the deterministic sandbox.
 */
import type { ChatMessage, ToolCall, Usage } from "./messages.js";
import type { JsonObject, Principal } from "./json.js";

/** What preparation tells the workflow about the agent as the worker knows it now. */
export interface PreparedAgent {
  /** Hash of everything a deferred step depends on (system, model, tool names/descriptions/schemas). */
  definitionHash: string;
  maxTurns: number;
  /** The agent's declared context window, and the tokens its system prompt and tool list take. */
  contextWindow?: number;
  overheadTokens: number;
  /** Whether the agent declares `onExpired`; without it an expiry fails the run with RC5047. */
  hasOnExpired: boolean;
  /** Tools routed to their own task queue (a work pool), by name. */
  toolQueues?: Record<string, string>;
  /** Activity timeouts for this agent's model and tool calls. */
  timeouts: { startToCloseMs: number; heartbeatMs: number };
}

export interface ModelCallInput {
  agentId: string;
  workflowId: string;
  /** Temporal run id: with `epoch` it names the thread a worker may have cached. */
  runId: string;
  /** Bumped whenever the thread is rewritten rather than appended to. */
  epoch: number;
  /** Length of the thread before `delta`. The worker has it cached, or queries the workflow for it. */
  baseLength: number;
  /** Only what was appended since the previous model call: this is what keeps history linear. */
  delta: ChatMessage[];
  /** Deltas are published to stream readers while the answer is written. */
  stream?: boolean;
  /** Who the run acts for, for a system prompt that is a function of it. */
  principal?: Principal;
  restored?: boolean;
  /**
   * Set on the first model call after a resume: the agent must still hash as it did when
   * the run deferred (RC5048) and still be registered (AI1007).
   */
  definitionCheck?: { deferralId: string; definitionHash: string };
}

export interface ModelCallOutput {
  message: { role: "assistant"; content: string | null; tool_calls?: ToolCall[] };
  usage: Usage;
}

export interface ToolCallInput {
  agentId: string;
  workflowId: string;
  /** The run's task queue: where sub-runs a tool dispatches go, even from a tool's own queue. */
  taskQueue?: string;
  toolCall: ToolCall;
  principal?: Principal;
  /** The id the run's next deferral will have: the same for every call of a batch. */
  deferralId: string;
  /** True once the run has been resumed: its principal was restored, not re-verified. */
  restored?: boolean;
  resumedBy?: Principal;
  /** Set inside a fan-out branch: deferring is refused there (RC5051). Names where. */
  deferralRefused?: string;
  /** Set when this call's deferral expired: the agent's `onExpired` runs instead of the handler. */
  expired?: { deferralId: string; expiresAt: string; meta: JsonObject };
}

/** What a handler asked for when it deferred: everything but the token, which never enters history. */
export interface DeferralRequest {
  schema?: JsonObject;
  ttlMs: number;
  meta: JsonObject;
}

export type ToolCallOutput = { content: string; isError: boolean } | { deferred: DeferralRequest };

export interface AgentActivities {
  prepareAgent(input: { agentId: string }): Promise<PreparedAgent>;
  callModel(input: ModelCallInput): Promise<ModelCallOutput>;
  callTool(input: ToolCallInput): Promise<ToolCallOutput>;
}
