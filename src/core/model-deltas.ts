import type { ModelDelta } from "./model.js";
import type { StreamBatch, StreamFlush, StreamUpdate, StreamUpdateBody } from "./thread-contracts.js";

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

/**
 * The entries of a delta signal the model activity numbered itself (`first` set): what the
 * thread's log stores for it and what a reader of the history's signals hands on, so both
 * hold the same seqs. Undefined for a signal the thread numbers (no `first`).
 */
export function numberedFlushEntries(flush: StreamFlush): StreamBatch | undefined {
  if (flush.first === undefined || flush.after === undefined) return undefined;
  const bodies: StreamUpdateBody[] = [
    ...(flush.reset ? [{ type: "reset", messageId: flush.streamId, reason: "retry" } as StreamUpdateBody] : []),
    ...deltaEntries(flush.parts, flush.streamId),
  ];
  return { after: flush.after, entries: bodies.map((body, i) => ({ ...body, seq: flush.first! + i }) as StreamUpdate) };
}
