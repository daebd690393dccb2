import { Connection } from "@temporalio/client";
import { NativeConnection } from "@temporalio/worker";
import { defineAgent } from "durable-agents";
import { address } from "../docs-support/env.js";
const support = defineAgent({ id: "support", model: "gpt-4.1-mini", system: "You help customers." });
// ---cut---
import { AgentClient, aesGcmCodec } from "durable-agents";
import { createAgentWorker, openaiModel } from "durable-agents/worker";

const dataConverter = { payloadCodecs: [aesGcmCodec({ keys: { "2026-11": process.env.PAYLOAD_KEY! }, current: "2026-11" })] };
const worker = await createAgentWorker({
  connection: await NativeConnection.connect({ address }), taskQueue: "agents", agents: [support], model: openaiModel(),
  worker: { dataConverter }, // the worker's own queries and signals use it too
});
const agents = new AgentClient({ connection: await Connection.connect({ address }), taskQueue: "agents", dataConverter }); // threads (agents.threads) and the HTTP front door go through it
// ---end---
const runId = `encrypted-${Date.now()}`;
await worker.runUntil(async () => {
  const result = await agents.run(support, { prompt: "My card number is 4111 1111 1111 1111", runId });
  console.log(result.status === "completed" ? `answer: ${result.text}` : result);
});
// What Temporal stores: the run's input as its history holds it, not decoded.
const input = (await agents.workflowHandle(runId).fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
const encoding = new TextDecoder().decode(input?.metadata?.encoding ?? new Uint8Array());
console.log(`stored as ${encoding}; the card number in the clear: ${Buffer.from(input?.data ?? []).includes("4111")}`);
await Promise.all([agents.client.connection.close(), worker.options.connection?.close()]);
