import { Context } from "@temporalio/activity";
import type { Client } from "@temporalio/client";
import type { ChatMessage } from "../src/core/messages.js";
import type { Model } from "../src/core/model.js";
import type { ResolvedThreadWorkerOptions } from "../src/threads/worker-options.js";
import type { ModelCallOutput } from "../src/core/contracts.js";
import type { ThreadModelCallInput } from "../src/core/thread-contracts.js";
import { threadStreamSignal, threadTranscriptQuery } from "../src/core/wire/thread.js";
import { fingerprint } from "../src/core/thread-transcript.js";
import type { AgentRegistry } from "./agent-registry.js";
import { toActivityFailure } from "./failures.js";
import { systemPrompt } from "./model-call.js";
import { withFrequentHeartbeat } from "./thread-heartbeat.js";
import { DeltaFlusher } from "./thread-stream-flusher.js";
import { ThreadCache } from "./thread-cache.js";

export interface ThreadModelCallDeps {
  registry: AgentRegistry;
  model: Model;
  cache: ThreadCache;
  client: Client;
  threads: ResolvedThreadWorkerOptions;
}

export function createThreadCallModel({ registry, model, cache, client, threads }: ThreadModelCallDeps) {
  /**
   * One model call of a thread turn. Its input holds only what the transcript gained
   * since the previous call; the rest comes from this worker's cache or a query. While
   * the answer streams, deltas go to the thread in throttled batches (signals).
   */
  return async function threadCallModel(input: ThreadModelCallInput): Promise<ModelCallOutput> {
    const ctx = Context.current();
    // The run that scheduled this call: a thread never continues as new with a model call in flight.
    const runId = ctx.info.workflowExecution?.runId;
    const flusher =
      input.stream && threads.stream
        ? new DeltaFlusher(
            (parts) =>
              client.workflow
                .getHandle(input.threadId, runId)
                .signal(threadStreamSignal, { streamId: input.streamId, attempt: ctx.info.attempt, parts }),
            threads.stream.intervalMs,
            threads.stream.maxBatches,
          )
        : undefined;
    try {
      const { agent, toolSpecs } = registry.get(input.agentId);
      const thread = await transcriptOf(input, runId);
      const response = await withFrequentHeartbeat(threads.stopLatencyMs / 2, () =>
        model.complete({
          model: agent.model,
          messages: [{ role: "system", content: systemPrompt(agent, { ...(input.principal ? { principal: input.principal } : {}) }) }, ...thread],
          tools: toolSpecs,
          signal: ctx.cancellationSignal,
          ...(flusher ? { onDelta: (delta) => flusher.push(delta) } : {}),
        }),
      );
      // The thread appends exactly this answer, so its next call sends only what follows it.
      cache.set(ThreadCache.key(input.threadId, input.firstRunId, 0), [...thread, response.message]);
      return { message: response.message, usage: response.usage };
    } catch (err) {
      throw toActivityFailure(err);
    } finally {
      await flusher?.close();
    }
  };

  async function transcriptOf(input: ThreadModelCallInput, runId: string | undefined): Promise<ChatMessage[]> {
    // Keyed by the first run: a thread's transcript only grows, across continue-as-new too.
    const key = ThreadCache.key(input.threadId, input.firstRunId, 0);
    const cached = input.baseLength === 0 ? [] : cache.prefix(key, input.baseLength);
    // A copy that does not end where the thread's transcript does (an answer the thread
    // never took, from a call that was stopped or lost) is not used.
    const fresh = cached && (input.baseTail === undefined || (cached.length > 0 && fingerprint(cached.at(-1)!) === input.baseTail));
    const base = fresh
      ? cached
      : await client.workflow.getHandle(input.threadId, runId).query(threadTranscriptQuery, { length: input.baseLength });
    const thread = base.concat(input.delta);
    cache.set(key, thread);
    return thread;
  }
}
