/**
 * Readers of one thread in a process of their own, for bench cost: its own AgentClient on
 * the Redis stream transport (env REDIS_URL), on a direct one (DIRECT=1), or with the
 * client's default (neither), against the bench's dev server, namespace and task queue (env
 * TEMPORAL_ADDRESS, NAMESPACE, TASK_QUEUE). It prints "ready" once started,
 * then takes one line on stdin, `{ threadId, followers, answerChars, via }`: that many
 * readers follow the thread through `followUpdates` (via "follow") or through a front door
 * of this process and its SSE route (via "sse") until the turn whose answer is answerChars
 * "x"s completes. It prints "caught-up" once every reader has what the thread held, "done"
 * once each saw the answer and the completed status, and exits.
 *
 * For bench thread-readers, the line may instead be `{ threadIds }`: one reader per thread,
 * each staying on its thread turn after turn (`followTurns`). It prints "caught-up" once all
 * have joined, then `answered <threadId> <Date.now()>` each time a reader sees a turn
 * complete; each later line "stats" is answered `stats {rssMb, workerConnections}` (this
 * process's memory and its connections to workers' endpoints). It runs until stdin closes.
 */
import { setMaxListeners } from "node:events";
import { createInterface } from "node:readline";
import { Connection } from "@temporalio/client";
import { AgentClient, directStreamTransport } from "../src/index.js";
import { createAgentHttpHandler } from "../src/http.js";
import { redisStreamTransport } from "../src/redis.js";
import { followEvents, followThread, followTurns } from "./stream-followers.js";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const connection = await Connection.connect({ address: env("TEMPORAL_ADDRESS") });
// With neither, the client's default transport: what a reader gets with no stream setting at all.
const transport = process.env.REDIS_URL ? redisStreamTransport({ url: process.env.REDIS_URL }) : process.env.DIRECT === "1" ? directStreamTransport() : undefined;
const agents = new AgentClient({ connection, namespace: env("NAMESPACE"), taskQueue: env("TASK_QUEUE"), ...(transport ? { stream: { transport } } : {}) });
console.log("ready");

// Stdin closes when the bench is gone: nobody is left to read what this process would say.
const lines = createInterface({ input: process.stdin });
lines.once("close", () => process.exit(0));
const line = await new Promise<string>((resolve) => lines.once("line", resolve));
if ((JSON.parse(line) as { threadIds?: string[] }).threadIds) await followEveryThread((JSON.parse(line) as { threadIds: string[] }).threadIds);
const { threadId, followers, answerChars, via } = JSON.parse(line) as { threadId: string; followers: number; answerChars: number; via: "follow" | "sse" };
const answer = "x".repeat(answerChars);
const frontDoor = via === "sse" ? createAgentHttpHandler({ agents, authenticate: () => undefined }) : undefined;
const events = `http://front-door/threads/${encodeURIComponent(threadId)}/events`;

const stop = new AbortController();
const readers = Array.from({ length: followers }, () =>
  frontDoor ? followEvents((signal) => frontDoor(new Request(events, { signal })), answer, stop.signal) : followThread(agents.threads, threadId, answer, stop.signal),
);
await Promise.all(readers.map((r) => r.caughtUp));
console.log("caught-up");
await Promise.all(readers.map((r) => r.done));
console.log("done");
stop.abort();
lines.removeAllListeners("close");
lines.close();
await transport?.close();
await connection.close();

/**
 * The thread-readers mode: one reader per thread until stdin closes (the process exits
 * then). They join JOIN_BATCH at a time, as a front end's users arrive, not all in one instant.
 */
async function followEveryThread(threadIds: string[]): Promise<never> {
  const JOIN_BATCH = 50;
  const stop = new AbortController();
  // Every reader listens on it: a thousand listeners are the point, not a leak.
  setMaxListeners(0, stop.signal);
  let failed = 0;
  let failure: string | undefined;
  const stats = () => ({
    rssMb: Math.round((process.memoryUsage().rss / 1024 / 1024) * 10) / 10,
    workerConnections: (transport as { workerConnections?: number } | undefined)?.workerConnections ?? 0,
    failedReaders: failed,
    ...(failure ? { failure } : {}),
  });
  lines.on("line", (asked) => {
    if (asked.trim() === "stats") console.log(`stats ${JSON.stringify(stats())}`);
  });
  for (let i = 0; i < threadIds.length; i += JOIN_BATCH) {
    const readers = threadIds.slice(i, i + JOIN_BATCH).map((id) => followTurns(agents.threads, id, (at) => console.log(`answered ${id} ${at}`), stop.signal));
    for (const r of readers) {
      r.ended.catch((err: unknown) => {
        failed += 1;
        failure ??= err instanceof Error ? err.message : String(err);
      });
    }
    await Promise.all(readers.map((r) => r.caughtUp));
  }
  console.log("caught-up");
  return new Promise<never>(() => undefined);
}
