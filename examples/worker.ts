/**
 * A standalone worker process for the payouts agent, as docker-compose runs it.
 * Env: TEMPORAL_ADDRESS (default localhost:7233), TEMPORAL_NAMESPACE, TASK_QUEUE,
 * DEFERRAL_SECRET (32+ bytes, shared with your services), OPENAI_API_KEY,
 * OPENAI_BASE_URL (any OpenAI-compatible server), OPENAI_MODEL.
 */
import { NativeConnection } from "@temporalio/worker";
import { createAgentWorker, openaiModel } from "../src/worker.js";
import { payouts } from "./payouts-agent.js";

const address = process.env.TEMPORAL_ADDRESS ?? "localhost:7233";
const connection = await NativeConnection.connect({ address });
const worker = await createAgentWorker({
  connection,
  namespace: process.env.TEMPORAL_NAMESPACE ?? "default",
  taskQueue: process.env.TASK_QUEUE ?? "payouts",
  agents: [payouts],
  model: openaiModel({ baseURL: process.env.OPENAI_BASE_URL, maxRetries: 0 }),
  ...(process.env.DEFERRAL_SECRET ? { deferral: { secret: process.env.DEFERRAL_SECRET } } : {}),
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => worker.shutdown());
console.log(`durable-agents worker polling "${process.env.TASK_QUEUE ?? "payouts"}" on ${address}`);
await worker.run();
await connection.close();
