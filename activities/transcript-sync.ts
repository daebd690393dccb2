import { Context } from "@temporalio/activity";
import type { Client, WorkflowHandle } from "@temporalio/client";
import type { AgentModelCallInput } from "../src/core/contracts.js";
import type { ChatMessage } from "../src/core/messages.js";
import { messageFingerprint } from "../src/core/fingerprint.js";
import { MAX_PAGE_MESSAGES } from "../src/core/payload-size.js";
import { runMessagesQuery, transcriptQuery } from "../src/core/wire/run.js";
import { threadTranscriptQuery } from "../src/core/wire/thread.js";
import { fillToolResults } from "../src/core/tool-result-refs.js";
import { TranscriptCache } from "./transcript-cache.js";

/**
 * The transcript a model call continues, for runs and threads alike: this worker's cached
 * copy plus the call's delta, or the host's own copy by query when the worker holds none
 * that ends where the host's does.
 */
export class TranscriptSync {
  readonly #cache: TranscriptCache;
  /** What this worker's tool calls of runs returned, by run and call, until a model call takes it. */
  readonly #toolResults = new Map<string, string>();
  readonly #maxToolResults: number;

  constructor(
    private readonly client: Client,
    maxTranscripts = 1000,
  ) {
    this.#cache = new TranscriptCache(maxTranscripts);
    this.#maxToolResults = maxTranscripts * 4;
  }

  /** A run's tool call returned `content` here: its next model call may name it instead of sending it. */
  rememberToolResult(workflowId: string, toolCallId: string, content: string): void {
    const key = `${workflowId}\u0000${toolCallId}`;
    this.#toolResults.delete(key);
    this.#toolResults.set(key, content);
    if (this.#toolResults.size > this.#maxToolResults) {
      const oldest = this.#toolResults.keys().next().value;
      if (oldest !== undefined) this.#toolResults.delete(oldest);
    }
  }

  async load(input: AgentModelCallInput): Promise<ChatMessage[]> {
    const key = keyOf(input);
    const delta = this.#delta(input);
    // A result named but not held here (its tool ran on another worker, or before a restart):
    // the host's transcript up to the end of the delta is read instead.
    if (!delta) {
      const transcript = await this.#query(input, input.baseLength + input.delta.length);
      this.#cache.set(key, transcript);
      return transcript;
    }
    const cached = input.baseLength === 0 ? [] : this.#cache.prefix(key, input.baseLength);
    // A copy that does not end where the host's transcript does (an answer the host never
    // took, from a call that was retried, stopped or lost) is not used.
    const fresh = cached && (input.baseTail === undefined || (cached.length > 0 && messageFingerprint(cached.at(-1)!) === input.baseTail));
    const base = fresh ? cached : await this.#query(input, input.baseLength);
    const transcript = base.concat(delta);
    this.#cache.set(key, transcript);
    return transcript;
  }

  /** The host appends exactly this answer, so its next call need not send it back. */
  remember(input: AgentModelCallInput, transcript: ChatMessage[], answer: ChatMessage): void {
    // `load` made `transcript` a fresh array that only the cache holds: extending it costs nothing.
    transcript.push(answer);
    this.#cache.set(keyOf(input), transcript);
  }

  /** The call's delta with the results it names filled in, or undefined when this worker lacks one. */
  #delta(input: AgentModelCallInput): ChatMessage[] | undefined {
    const refs = input.toolResultRefs;
    if (!refs || refs.length === 0) return input.delta;
    const lookup = (toolCallId: string) => this.#toolResults.get(`${input.workflowId}\u0000${toolCallId}`);
    const filled = fillToolResults(input.delta, refs, lookup);
    if (filled) for (const ref of refs) this.#toolResults.delete(`${input.workflowId}\u0000${(input.delta[ref.index] as { tool_call_id: string }).tool_call_id}`);
    return filled;
  }

  /**
   * The host's first `length` messages, a page at a time: a transcript may be larger
   * than one query's answer can be.
   */
  async #query(input: AgentModelCallInput, length: number): Promise<ChatMessage[]> {
    // The execution that scheduled this call: neither host continues as new with a model call in flight.
    const handle = this.client.workflow.getHandle(input.workflowId, Context.current().info.workflowExecution?.runId);
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
