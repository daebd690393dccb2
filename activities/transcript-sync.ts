import { Context } from "@temporalio/activity";
import type { Client, WorkflowHandle } from "@temporalio/client";
import type { AgentModelCallInput } from "../src/core/contracts.js";
import type { ChatMessage } from "../src/core/messages.js";
import { fingerprint } from "../src/core/thread-transcript.js";
import { MAX_PAGE_MESSAGES } from "../src/core/payload-size.js";
import { runMessagesQuery, transcriptQuery } from "../src/core/wire/run.js";
import { threadTranscriptQuery } from "../src/core/wire/thread.js";
import { TranscriptCache } from "./transcript-cache.js";

/**
 * The transcript a model call continues, for runs and threads alike: this worker's cached
 * copy plus the call's delta, or the host's own copy by query when the worker holds none
 * that ends where the host's does.
 */
export class TranscriptSync {
  readonly #cache: TranscriptCache;

  constructor(
    private readonly client: Client,
    maxTranscripts?: number,
  ) {
    this.#cache = new TranscriptCache(maxTranscripts);
  }

  async load(input: AgentModelCallInput): Promise<ChatMessage[]> {
    const key = keyOf(input);
    const cached = input.baseLength === 0 ? [] : this.#cache.prefix(key, input.baseLength);
    // A copy that does not end where the host's transcript does (an answer the host never
    // took, from a call that was retried, stopped or lost) is not used.
    const fresh = cached && (input.baseTail === undefined || (cached.length > 0 && fingerprint(cached.at(-1)!) === input.baseTail));
    const base = fresh ? cached : await this.#query(input);
    const transcript = base.concat(input.delta);
    this.#cache.set(key, transcript);
    return transcript;
  }

  /** The host appends exactly this answer, so its next call need not send it back. */
  remember(input: AgentModelCallInput, transcript: ChatMessage[], answer: ChatMessage): void {
    // `load` made `transcript` a fresh array that only the cache holds: extending it costs nothing.
    transcript.push(answer);
    this.#cache.set(keyOf(input), transcript);
  }

  /**
   * The host's first `baseLength` messages, a page at a time: a transcript may be larger
   * than one query's answer can be.
   */
  async #query(input: AgentModelCallInput): Promise<ChatMessage[]> {
    // The execution that scheduled this call: neither host continues as new with a model call in flight.
    const handle = this.client.workflow.getHandle(input.workflowId, Context.current().info.workflowExecution?.runId);
    const length = input.baseLength;
    const messages: ChatMessage[] = [];
    while (messages.length < length) {
      const offset = messages.length;
      const limit = Math.min(MAX_PAGE_MESSAGES, length - offset);
      const page =
        input.host === "run"
          ? // A run refuses a stale epoch: a call prepared before a rewrite must not read the rewritten transcript.
            await runPage(handle, input.epoch, offset, limit, length)
          : // A thread's workflow from before pages ignores offset and limit and answers the whole prefix at once.
            await handle.query(threadTranscriptQuery, { length, offset, limit });
      if (page.length === 0) throw new Error(`the transcript of ${input.workflowId} ended at ${offset} of ${length} messages`);
      messages.push(...page.slice(0, length - offset));
      Context.current().heartbeat();
    }
    return messages;
  }
}

async function runPage(handle: WorkflowHandle, epoch: number, offset: number, limit: number, length: number): Promise<ChatMessage[]> {
  try {
    return (await handle.query(runMessagesQuery, { offset, limit, epoch })).messages;
  } catch (err) {
    // A run executed by a worker from before paged reads knows only the unpaged query.
    if (offset === 0 && err instanceof Error && /did not register a handler/i.test(err.message)) {
      return handle.query(transcriptQuery, { epoch, length });
    }
    throw err;
  }
}

function keyOf(input: AgentModelCallInput): string {
  return TranscriptCache.key(input.workflowId, input.transcriptId, input.epoch);
}
