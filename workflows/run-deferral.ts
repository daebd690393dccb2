import { deniedResult } from "../src/core/denied-result.js";
import { DeferralExpiredError } from "../src/core/errors/deferrals.js";
import type { AgentActivities, DeferralRequest, PreparedAgent } from "../src/core/contracts.js";
import type { ChatMessage, ToolCall } from "../src/core/messages.js";
import { findToolCall } from "../src/core/thread-transcript.js";
import type { RunProgress } from "../src/core/run-state.js";
import type { DeferralRecord } from "../src/core/deferral-record.js";
import { DeferralBook } from "./deferral-book.js";
import type { ParkRequest } from "./deferral-records.js";
import { workflowDeferralRuntime, type DeferralRuntime } from "./deferral-runtime.js";
import type { RunContext } from "./run-context.js";

/**
 * An agent run's deferrals: a waiting one's step state is the run's transcript, which a
 * rewrite may replace, and a resume continues only if the agent's definition is unchanged.
 */
export function agentDeferralBook(
  { state, transcript, definitionCheck }: Pick<RunContext, "state" | "transcript" | "definitionCheck">,
  version: number | undefined,
  preparation: {
    reprepare(agentId: string, record: DeferralRecord): Promise<PreparedAgent>;
    reprepared(prepared: PreparedAgent): void;
  },
  runtime: DeferralRuntime = workflowDeferralRuntime(),
): DeferralBook {
  const current = version !== undefined && version >= 2;
  return new DeferralBook(runtime, {
    deferResumedStatus: current,
    async verify(record) {
      // Runs started with this version check the definition in the first model call after
      // the resume: one round trip less between resume() and the model than a local
      // activity before the claim, which older runs (and their histories) still use. It is
      // an input field rather than a patch so it adds no search-attribute write per resume.
      if (current) {
        definitionCheck.record = record;
        return;
      }
      preparation.reprepared(await preparation.reprepare(state.agentId, record));
    },
    stepState: (record) => ({
      agentId: state.agentId,
      messages: state.messages,
      deferredToolCallId: record.toolCallId,
      turnsUsed: state.turnsUsed,
      usage: state.usage,
    }),
    replaceMessages(_record, messages) {
      state.messages = messages;
      transcript.replaced(messages);
    },
    deferredCall: (record) => findToolCall(state.messages, record.toolCallId)?.call,
  });
}

/** Parks the run for `winner`'s deferral and lands its answer (resume or onExpired) in the transcript. */
export async function deferUntilAnswered(
  { state, book, prepared, tracing }: RunContext,
  winner: { call: ToolCall; request: DeferralRequest },
  callTool: AgentActivities["callTool"],
  toolInput: (call: ToolCall) => Parameters<AgentActivities["callTool"]>[0],
): Promise<void> {
  let request = winner.request;
  for (;;) {
    tracing?.end("deferred", { deferralId: book.nextDeferralId(), turnsUsed: state.turnsUsed });
    const parked = await book.park(parkRequest(state, prepared(), winner.call, request));
    tracing?.next(state.agentId, { event: parked.kind, deferralId: parked.record.id, at: new Date().toISOString() });
    if (parked.kind === "resumed") {
      state.messages.push(resultMessage(winner.call.id, parked.payload));
      // Identity is restored from storage, not re-verified, unless the resume vouched for it live.
      state.restored = !parked.reverified;
      if (parked.reverified) state.principal = parked.reverified;
      if (parked.resumedBy) state.resumedBy = parked.resumedBy;
      return;
    }
    if (parked.kind === "denied") {
      const { record } = parked;
      const { reason, by } = record.denial;
      if (prepared().hasOnDenied) {
        // The agent's onDenied answers for the call, or asks again.
        const out = await callTool({ ...toolInput(winner.call), denied: { deferralId: record.id, reason, ...(by ? { by } : {}), meta: record.meta } });
        if ("deferred" in out) {
          request = out.deferred;
          continue;
        }
        state.messages.push({ role: "tool", tool_call_id: winner.call.id, content: out.content });
        return;
      }
      // The model hears it was denied, by whom and why, as the deferred call's result, and goes on.
      state.messages.push({ role: "tool", tool_call_id: winner.call.id, content: deniedResult(reason, by?.id) });
      return;
    }
    const { record } = parked;
    if (!prepared().hasOnExpired) {
      throw new DeferralExpiredError({ deferralId: record.id, expiresAt: record.expiresAt }).toFailure();
    }
    const out = await callTool({
      ...toolInput(winner.call),
      expired: { deferralId: record.id, expiresAt: record.expiresAt, meta: record.meta },
    });
    if ("deferred" in out) {
      request = out.deferred;
      continue;
    }
    state.messages.push({ role: "tool", tool_call_id: winner.call.id, content: out.content });
    return;
  }
}

/** The tool result a resume's payload becomes: a string as it is, anything else as its JSON. */
export function resultMessage(toolCallId: string, payload: unknown): ChatMessage {
  return { role: "tool", tool_call_id: toolCallId, content: typeof payload === "string" ? payload : JSON.stringify(payload) };
}

/** The record a tool's deferral asks for: what the store lists and what a resume is checked against. */
export function parkRequest(state: RunProgress, prepared: PreparedAgent, call: ToolCall, request: DeferralRequest): ParkRequest {
  return {
    toolCallId: call.id,
    toolName: call.function.name,
    agentId: state.agentId,
    ...(request.schema ? { schema: request.schema } : {}),
    meta: request.meta,
    ttlMs: request.ttlMs,
    definitionHash: prepared.definitionHash,
    ...(prepared.definitionParts ? { definitionParts: prepared.definitionParts } : {}),
    ...(state.principal ? { principal: state.principal } : {}),
    ...(prepared.contextWindow ? { contextWindow: prepared.contextWindow, overheadTokens: prepared.overheadTokens } : {}),
    ...(request.digest ? { digest: request.digest } : {}),
  };
}

