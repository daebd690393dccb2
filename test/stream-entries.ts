/**
 * What stream tests read in the entries a reader got: the deltas apart from the durable
 * entries, their seqs, the text streamed, the answer that ended a turn; and the batches a
 * reader process (test/workers/thread-reader.ts) wrote to its file.
 */
import { existsSync, readFileSync } from "node:fs";
import proto from "@temporalio/proto";
import type { Principal, StreamSnapshot, StreamUpdate, ThreadsClient } from "../src/index.js";

const { EventType } = proto.temporal.api.enums.v1;

export const isDelta = (u: StreamUpdate) => u.type === "text-delta" || u.type === "tool-input-delta";
export const durableOf = (updates: StreamUpdate[]) => updates.filter((u) => !isDelta(u));
export const seqsOf = (updates: StreamUpdate[]) => updates.map((u) => u.seq);
export const ascending = (seqs: number[]) => [...new Set(seqs)].sort((a, b) => a - b);
export const completed = (u: StreamUpdate) => u.type === "status" && u.status === "completed";
/** The last assistant message among the entries (the answer that ends a turn). */
export const assistantMessage = (updates: StreamUpdate[]) =>
  [...updates].reverse().find((u) => u.type === "message" && u.message.role === "assistant") as Extract<StreamUpdate, { type: "message" }> | undefined;
export const deltaText = (updates: StreamUpdate[]) => updates.flatMap((u) => (u.type === "text-delta" ? [u.text] : [])).join("");

/** What `follow` collects. */
export interface Follower {
  batches: StreamSnapshot[];
  updates(): StreamUpdate[];
  done: Promise<void>;
}

/** A followUpdates reader (polling every 50 ms) collecting its batches until an entry passes `until` (a completed turn by default). */
export function follow(threads: ThreadsClient, threadId: string, until: (u: StreamUpdate) => boolean = completed, principal?: Principal): Follower {
  const batches: StreamSnapshot[] = [];
  const done = (async () => {
    for await (const batch of threads.followUpdates({ threadId, pollInterval: 50, until: (b) => b.updates.some(until), ...(principal ? { principal } : {}) })) batches.push(batch);
  })();
  return { batches, updates: () => batches.flatMap((b) => b.updates), done };
}

/** The batches a reader process wrote to `out` so far (a line being written is not one yet). */
export function batchesIn(out: string): StreamSnapshot[] {
  if (!existsSync(out)) return [];
  const text = readFileSync(out, "utf8");
  return text.slice(0, text.lastIndexOf("\n") + 1).split("\n").filter(Boolean).map((line) => JSON.parse(line) as StreamSnapshot);
}

/** The signals in a thread's history: by signal, one per batch of deltas; out of band, none. */
export async function signalsOf(threads: ThreadsClient, threadId: string) {
  const events = (await threads.workflowHandle(threadId).fetchHistory()).events ?? [];
  return events.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED);
}
