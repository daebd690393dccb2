import { deniedResult } from "../../src/core/denied-result.js";
import { DeferralExpiredError } from "../../src/core/errors/deferrals.js";
import type { AgentDescription, DeferralRequest, RunToolCall, RunToolCallOutput } from "../../src/core/contracts.js";
import type { ChatMessage, ToolCall } from "../../src/core/messages.js";
import { findToolCall } from "../../src/core/thread-transcript.js";
import type { RunProgress } from "../../src/core/run-state.js";
import { DeferralBook } from "../deferrals/book.js";
import type { ParkRequest } from "../deferrals/records.js";
import { workflowDeferralRuntime, type DeferralRuntime } from "../deferrals/runtime.js";
import type { RunContext } from "./context.js";

/**
 * An agent run's deferrals: a waiting one's step state is the run's transcript, which a
 * rewrite may replace, and a resume continues only if the agent's definition is unchanged.
 */
export function agentDeferralBook(
  { state, transcript, definitionCheck }: Pick<RunContext, "state" | "transcript" | "definitionCheck">,
  runtime: DeferralRuntime = workflowDeferralRuntime(),
): DeferralBook {
  return new DeferralBook(runtime, {
    deferResumedStatus: true,
    // The definition is checked by the first model call after the resume, not by an
    // activity before the claim: one round trip less between resume() and the model.
    async verify(record) {
      definitionCheck.record = record;
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
  callTool: (input: RunToolCall) => Promise<RunToolCallOutput>,
  toolInput: (call: ToolCall) => RunToolCall,
): Promise<void> {
  let request = winner.request;
  for (;;) {
    tracing.end("deferred", { deferralId: book.nextDeferralId(), turnsUsed: state.turnsUsed });
    const parked = await book.park(parkRequest(state, prepared(), winner.call, request)).outcome;
    tracing.next(state.agentId, { event: parked.kind, deferralId: parked.record.id, at: new Date().toISOString() });
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
export function parkRequest(state: RunProgress, prepared: AgentDescription, call: ToolCall, request: DeferralRequest): ParkRequest {
  return {
    toolCallId: call.id,
    toolName: call.function.name,
    agentId: state.agentId,
    ...(request.schema ? { schema: request.schema } : {}),
    meta: request.meta,
    ttlMs: request.ttlMs,
    ...definitionOf(prepared),
    ...(state.principal ? { principal: state.principal } : {}),
    ...(request.digest ? { digest: request.digest } : {}),
  };
}

/** What a run's records keep of its agent's definition: a resume is checked against it (RC5048), a compaction against its window. */
export function definitionOf(prepared: AgentDescription): Pick<ParkRequest, "definitionHash" | "definitionParts" | "contextWindow" | "overheadTokens"> {
  return {
    definitionHash: prepared.definitionHash,
    ...(prepared.definitionParts ? { definitionParts: prepared.definitionParts } : {}),
    ...(prepared.contextWindow ? { contextWindow: prepared.contextWindow, overheadTokens: prepared.overheadTokens } : {}),
  };
}

