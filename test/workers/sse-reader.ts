/**
 * An SSE reader in its own process, through its own front door (its own Temporal client,
 * so its own poller): follows THREAD_ID's events until the turn completes and appends
 * each event to OUT as a JSON line. Counts the stream queries Temporal refused as busy
 * (RESOURCE_EXHAUSTED) in BUSY_OUT. Env: TEMPORAL_ADDRESS, NAMESPACE, TASK_QUEUE,
 * THREAD_ID, OUT, POLL_MS. Prints "ready" before it starts reading.
 */
import { appendFileSync, writeFileSync } from "node:fs";
import { Client, Connection, type WorkflowClientInterceptor } from "@temporalio/client";
import { AgentClient, ThreadsClient } from "../../src/index.js";
import { createAgentHttpHandler } from "../../src/http.js";

const env = (name: string) => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
};

let refused = 0;
const counting: WorkflowClientInterceptor = {
  async query(input, next) {
    try {
      return await next(input);
    } catch (err) {
      if (/RESOURCE_EXHAUSTED|buffer/i.test(String((err as Error)?.message) + String((err as { cause?: Error })?.cause?.message))) refused++;
      throw err;
    }
  },
};
const connection = await Connection.connect({ address: env("TEMPORAL_ADDRESS") });
const client = new Client({ connection, namespace: env("NAMESPACE"), interceptors: { workflow: [counting] } });
const taskQueue = env("TASK_QUEUE");
const handler = createAgentHttpHandler({
  agents: new AgentClient({ client, taskQueue }),
  threads: new ThreadsClient({ client, taskQueue }),
  authenticate: () => undefined,
  events: { pollInterval: Number(env("POLL_MS")) },
});
console.log("ready");

let lastEventId: string | undefined;
for (let done = false; !done; ) {
  const response = await handler(
    new Request(`http://reader/threads/${encodeURIComponent(env("THREAD_ID"))}/events`, { headers: lastEventId ? { "last-event-id": lastEventId } : {} }),
  );
  if (response.status === 404) {
    // The thread does not exist yet.
    await new Promise((resolve) => setTimeout(resolve, 20));
    continue;
  }
  if (response.status !== 200) throw new Error(`events answered ${response.status}: ${await response.text()}`);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  while (!done) {
    const { value, done: ended } = await reader.read();
    if (ended) break;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const id = /^id: (.*)$/m.exec(block)?.[1];
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (data === undefined) continue;
      if (id) lastEventId = id;
      appendFileSync(env("OUT"), `${JSON.stringify({ pid: process.pid, id, event, data: JSON.parse(data) })}\n`);
      const entry = JSON.parse(data) as { type?: string; status?: string };
      if (entry.type === "status" && entry.status === "completed") done = true;
    }
  }
  await reader.cancel().catch(() => undefined);
}
writeFileSync(`${env("OUT")}.busy`, String(refused));
await connection.close();
