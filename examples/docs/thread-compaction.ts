import { Connection } from "@temporalio/client";
import { address, startWorker } from "../docs-support/env.js";
const connection = await Connection.connect({ address });
const log: string[] = [];
// ---cut---
import { defineAgent, ThreadsClient } from "durable-agents";

const planner = defineAgent({
  id: "trip-planner",
  model: "gpt-4.1-mini",
  system: "You plan trips.",
  compaction: {
    keepTurns: 1, // the newest turns the model keeps reading verbatim
    maxInputTokens: 60, // tiny, so that this example compacts at once; e.g. 32_000 in a real app
    summarizer: { model: "gpt-4.1-nano", system: "Summarize the trip planned so far in one line." },
  },
});
const worker = await startWorker([planner]); // createAgentWorker({ agents: [planner], … })
const threads = new ThreadsClient({ connection, taskQueue: "agents", agent: planner });

const { threadId } = await threads.createThread({ prompt: "Plan three days in Lisbon for two people in May, please." });
for (const prompt of ["Add a day trip to Sintra on the second day.", "Which museums should we book ahead?"]) {
  await threads.settled({ threadId });
  await threads.sendMessage({ threadId, prompt });
}
await threads.settled({ threadId });
for (const entry of (await threads.streamUpdates({ threadId })).updates) {
  if (entry.type === "compacted") log.push(`compacted ${entry.compactedMessages} messages: ${entry.bytesBefore} → ${entry.bytesAfter} bytes`);
}
// Nothing is lost: the compacted originals page back first (from the history that keeps them).
const first = await threads.listMessages({ threadId, limit: 1 });
log.push(`${first.total} messages; the first: ${first.messages[0]?.content}`);
// ---end---
console.log(log.join("\n"));
await worker.close();
await connection.close();
