/**
 * bench throughput's agent, shared by the bench (its clients) and its worker processes: a
 * search tool, and a model that calls it twice and then answers (3 steps, 2 tool calls) in
 * every turn, whatever the conversation.
 */
import { defineAgent } from "../src/index.js";
import type { Responder } from "../src/testing/index.js";
import { MODEL, searchTool, USAGE } from "./lib.js";

/** Tool result size: a short passage, so the work per turn is the engine's rather than the payload's. */
export const TOOL_RESULT_BYTES = 200;
/** Model calls per turn: TOOL_CALLS searches, then the answer. */
export const TOOL_CALLS = 2;

export const throughputTool = searchTool(TOOL_RESULT_BYTES);
/** The system prompt, the bare workflows' too. */
export const SYSTEM = "You research questions with the search tool, then answer briefly.";

export const throughputAgent = defineAgent({
  id: "throughput",
  model: MODEL,
  system: SYSTEM,
  tools: [throughputTool.sdk],
  maxTurns: TOOL_CALLS + 1,
});

/**
 * Two searches, then an answer, counted from the turn's own user message (a thread's later
 * turns carry the earlier ones), each reply after `thinkMs`.
 */
export function twoSearchesThenAnswer(thinkMs: number): Responder {
  return (request) => {
    let step = 0;
    for (let i = request.messages.length - 1; i >= 0 && request.messages[i]!.role !== "user"; i--) if (request.messages[i]!.role === "assistant") step += 1;
    return step < TOOL_CALLS
      ? { toolCalls: [{ name: "search", arguments: { query: `topic ${step}` } }], usage: USAGE, delay: thinkMs }
      : { text: `Answer after ${TOOL_CALLS} searches.`, usage: USAGE, delay: thinkMs };
  };
}
