import type { AgentToolCallOutput } from "./contracts.js";
import { DEFAULT_TOOL_RESULT_BYTES, jsonBytes, jsonStringPrefix } from "./payload-size.js";

/** Room kept for the note at the end of a truncated result: it is ASCII and far shorter. */
const NOTE_ROOM = 400;

/** What a cut result keeps of its beginning at the least, however small its share. */
const MIN_KEPT = 112;

/**
 * A tool call's output with its content cut to `toolMaxBytes` (JSON bytes) when it is
 * larger, or to `shareBytes` (the call's share of the room its host left for the step's
 * results) when that is smaller, ending with a note for the model: Temporal records every
 * result in history and refuses payloads over 2 MB, terminating the workflow. Other outputs
 * (a deferral, a started async call) pass as they are; their own checks bound them.
 */
export function limitToolResult<T extends AgentToolCallOutput>(out: T, toolMaxBytes = DEFAULT_TOOL_RESULT_BYTES, shareBytes?: number): T {
  if (!("content" in out) || typeof out.content !== "string") return out;
  const shared = shareBytes !== undefined && shareBytes < toolMaxBytes;
  const maxBytes = shared ? Math.max(shareBytes, MIN_KEPT + NOTE_ROOM) : toolMaxBytes;
  const bytes = jsonBytes(out.content) - 2;
  if (bytes <= maxBytes) return out;
  const kept = jsonStringPrefix(out.content, maxBytes - NOTE_ROOM);
  const limit = shared
    ? `over the ${maxBytes} bytes this call was given (its share of the room left for this step's results: the calls of one step share it, and a long conversation leaves less)`
    : `over the tool's ${maxBytes}-byte limit`;
  const note =
    `\n\n[Truncated by durable-agents: this ${"isError" in out && out.isError ? "error" : "result"} was ${bytes} bytes, ${limit}; ` +
    `only its first ${jsonBytes(kept) - 2} bytes are above. Ask for less (a narrower query, one page, fewer calls at once) to see the rest.]`;
  return { ...out, content: kept + note };
}
