import type { AgentToolCallOutput } from "../src/core/contracts.js";
import { DEFAULT_TOOL_RESULT_BYTES, jsonBytes, jsonStringPrefix } from "../src/core/payload-size.js";

/** Room kept for the note at the end of a truncated result: it is ASCII and far shorter. */
const NOTE_ROOM = 300;

/**
 * A tool call's output with its content cut to `maxBytes` (JSON bytes) when it is larger,
 * ending with a note for the model: Temporal records every result in history and refuses
 * payloads over 2 MB, terminating the workflow. Other outputs (a deferral, a started async
 * call) pass as they are; their own checks bound them.
 */
export function limitToolResult<T extends AgentToolCallOutput>(out: T, maxBytes = DEFAULT_TOOL_RESULT_BYTES): T {
  if (!("content" in out) || typeof out.content !== "string") return out;
  const bytes = jsonBytes(out.content) - 2;
  if (bytes <= maxBytes) return out;
  const kept = jsonStringPrefix(out.content, maxBytes - NOTE_ROOM);
  const note =
    `\n\n[Truncated by durable-agents: this ${"isError" in out && out.isError ? "error" : "result"} was ${bytes} bytes, over the tool's ${maxBytes}-byte limit; ` +
    `only its first ${jsonBytes(kept) - 2} bytes are above. Ask for less (a narrower query, one page) to see the rest.]`;
  return { ...out, content: kept + note };
}
