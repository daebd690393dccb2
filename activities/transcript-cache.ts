import type { ChatMessage } from "../src/core/messages.js";

/**
 * The worker's copy of each active transcript (of a run or a thread), so a model call's
 * input carries only what is new. Bounded LRU: a miss costs one query to the workflow,
 * never correctness.
 */
export class TranscriptCache {
  readonly #transcripts = new Map<string, ChatMessage[]>();

  constructor(private readonly maxTranscripts = 1000) {}

  static key(workflowId: string, transcriptId: string, epoch: number): string {
    return `${workflowId}\u0000${transcriptId}\u0000${epoch}`;
  }

  /** The first `length` messages, if this worker holds at least that many of the transcript. */
  prefix(key: string, length: number): ChatMessage[] | undefined {
    const transcript = this.#transcripts.get(key);
    if (!transcript || transcript.length < length) return undefined;
    // Transcripts only grow within an epoch, so any longer copy starts with the prefix asked for.
    return transcript.length === length ? transcript : transcript.slice(0, length);
  }

  set(key: string, transcript: ChatMessage[]): void {
    this.#transcripts.delete(key);
    this.#transcripts.set(key, transcript);
    if (this.#transcripts.size > this.maxTranscripts) {
      const oldest = this.#transcripts.keys().next().value;
      if (oldest !== undefined) this.#transcripts.delete(oldest);
    }
  }
}
