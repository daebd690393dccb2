/**
 * A stream reader in its own process: follows a thread's updates from FROM_SEQ until a
 * status entry says the turn completed, appending each batch it got (with the status it
 * read alongside) to OUT as a JSON line. Env: TEMPORAL_ADDRESS, NAMESPACE, TASK_QUEUE,
 * THREAD_ID, FROM_SEQ, OUT; with REDIS_URL, the reader hears the workers' live entries on a
 * Redis stream transport there; with DIRECT=1, on a direct stream transport (the workers'
 * endpoints). Prints "ready" before it starts polling.
 */
import { appendFileSync } from "node:fs";
import { Connection } from "@temporalio/client";
import { directStreamTransport, ThreadsClient, ThreadNotFoundError } from "../../src/index.js";
import { redisStreamTransport } from "../../src/redis.js";

const env = (name: string) => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
};

const connection = await Connection.connect({ address: env("TEMPORAL_ADDRESS") });
const redisUrl = process.env.REDIS_URL;
const transport = redisUrl ? redisStreamTransport({ url: redisUrl }) : process.env.DIRECT === "1" ? directStreamTransport() : undefined;
const threads = new ThreadsClient({ connection, namespace: env("NAMESPACE"), taskQueue: env("TASK_QUEUE"), ...(transport ? { stream: { transport } } : {}) });
const threadId = env("THREAD_ID");
console.log("ready");
let fromSeq = Number(env("FROM_SEQ"));
for (;;) {
  try {
    for await (const batch of threads.followUpdates({
      threadId,
      fromSeq,
      pollInterval: 50,
      until: (b) => b.updates.some((u) => u.type === "status" && u.status === "completed"),
    })) {
      appendFileSync(env("OUT"), `${JSON.stringify({ pid: process.pid, status: batch.status, lastSeq: batch.lastSeq, updates: batch.updates })}\n`);
      fromSeq = batch.lastSeq;
    }
    break;
  } catch (err) {
    // The thread may not exist yet when the reader starts.
    if (!ThreadNotFoundError.isInstance(err)) throw err;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
await transport?.close();
await connection.close();
