import { Context } from "@temporalio/activity";
import type { Client } from "@temporalio/client";
import { isSummary, summaryMessage, type SummarizeInput, type SummarizeOutput } from "../src/core/compaction.js";
import { CompactionFailedError } from "../src/core/errors/threads.js";
import { countsOf, type ChatMessage } from "../src/core/messages.js";
import type { Model } from "../src/core/model.js";
import { jsonBytes } from "../src/core/payload-size.js";
import type { AgentRegistry } from "./agent-registry.js";
import { toModelFailure } from "./failures.js";
import { withHeartbeat } from "./heartbeat.js";
import { assertModelResponse } from "./model-response.js";
import type { ActivitySettings } from "./settings.js";

/** The summarizer's instructions when the agent gives none. */
export const DEFAULT_SUMMARIZER_SYSTEM =
  "You compact a conversation between a user and an assistant that used tools. Write a summary the assistant will read instead of these messages: keep every fact, name, number, decision, promise, tool result that still matters and open question; drop pleasantries and repetition. Write it as plain notes, in the conversation's language, as short as that allows.";

/**
 * `summarizeTranscript`: the summary that replaces a thread's older turns, from the model
 * the agent's `compaction.summarizer` names (its own by default). Its input holds exactly
 * the messages replaced, so the run's history keeps them for `listMessages`. A summary that
 * is empty or no smaller than what it replaces is refused (AI1031): the thread then keeps
 * its transcript.
 */
export function createSummarizeTranscript({ registry, model, client, settings }: { registry: AgentRegistry; model: Model; client: Client; settings: Pick<ActivitySettings, "stopLatencyMs"> }) {
  return async function summarizeTranscript(input: SummarizeInput): Promise<SummarizeOutput> {
    const ctx = Context.current();
    try {
      const { agent } = registry.get(input.agentId);
      const summarizer = agent.compaction?.summarizer ?? {};
      const messages: ChatMessage[] = [
        { role: "system", content: summarizer.system ?? DEFAULT_SUMMARIZER_SYSTEM },
        { role: "user", content: transcriptText(input.messages) },
      ];
      const response = await withHeartbeat(
        settings.stopLatencyMs,
        () => model.complete({ model: summarizer.model ?? agent.model, messages, tools: [], signal: ctx.cancellationSignal }),
        client,
      );
      assertModelResponse(response);
      const summary = typeof response.message.content === "string" ? response.message.content.trim() : "";
      const refuse = (reason: "empty" | "too-long", detail: string) => new CompactionFailedError({ threadId: input.threadId, reason, detail });
      if (summary === "") throw refuse("empty", "the summarizer answered no text");
      const bytes = jsonBytes(summaryMessage(summary));
      if (bytes >= input.replacesBytes) throw refuse("too-long", `its summary is ${bytes} bytes, the ${input.messages.length} messages it would replace ${input.replacesBytes}`);
      return { summary, usage: countsOf(response.usage) };
    } catch (err) {
      throw toModelFailure(err);
    }
  };
}

/** The messages as one text the summarizer reads: each with its role, calls with their arguments. */
function transcriptText(messages: readonly ChatMessage[]): string {
  const lines = messages.map((m) => {
    if (isSummary(m)) return `[summary of what came before]\n${m.content}`;
    if (m.role === "assistant") {
      const calls = (m.tool_calls ?? []).map((c) => `\n[calls ${c.function.name} (${c.id}) with ${c.function.arguments}]`).join("");
      return `assistant: ${m.content ?? ""}${calls}`;
    }
    if (m.role === "tool") return `[result of ${m.tool_call_id}] ${m.content}`;
    return `${m.role}: ${m.content}`;
  });
  return `Summarize this conversation:\n\n${lines.join("\n\n")}`;
}
