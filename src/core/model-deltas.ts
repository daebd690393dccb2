import type { ModelDelta } from "./model.js";
import type { StreamUpdateBody } from "./thread-contracts.js";

/** Adjacent text pieces, and adjacent pieces of one tool call's arguments, become one entry each. */
export function mergeDeltas(parts: ModelDelta[]): ModelDelta[] {
  const out: ModelDelta[] = [];
  for (const part of parts) {
    const last = out.at(-1);
    if (last?.kind === "text" && part.kind === "text") {
      out[out.length - 1] = { kind: "text", text: last.text + part.text };
    } else if (last?.kind === "tool-input" && part.kind === "tool-input" && last.toolCallId === part.toolCallId && !part.name) {
      out[out.length - 1] = { ...last, argumentsDelta: last.argumentsDelta + part.argumentsDelta };
    } else {
      out.push({ ...part });
    }
  }
  return out;
}

/** The stream entries a batch of an answer's deltas becomes (merged first). */
export function deltaEntries(parts: ModelDelta[], messageId: string): StreamUpdateBody[] {
  return mergeDeltas(parts).map((part) =>
    part.kind === "text"
      ? { type: "text-delta", messageId, text: part.text }
      : {
          type: "tool-input-delta",
          messageId,
          toolCallId: part.toolCallId,
          ...(part.name ? { toolName: part.name } : {}),
          argumentsDelta: part.argumentsDelta,
        },
  );
}
