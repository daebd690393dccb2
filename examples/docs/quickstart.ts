import { z } from "zod";
import { Connection } from "@temporalio/client";
import { NativeConnection } from "@temporalio/worker";
import { AgentClient, defineAgent, defineTool } from "durable-agents";
import { createAgentWorker, openaiModel } from "durable-agents/worker";

const address = process.env.TEMPORAL_ADDRESS ?? "localhost:7233";

const getWeather = defineTool({
  name: "getWeather",
  description: "Current weather for a city",
  input: z.object({ city: z.string() }), // bad arguments go back to the model to fix
  handler: async ({ city }) => ({ city, celsius: 4 }), // your API call here, with ctx.signal and ctx.idempotencyKey
});

export const weather = defineAgent({ id: "weather", model: "gpt-4.1-mini", system: "Answer with tools.", tools: [getWeather], maxTurns: 8 });

// The worker runs the agent loop: in production a process of its own, calling worker.run().
const workerConnection = await NativeConnection.connect({ address });
const worker = await createAgentWorker({ connection: workerConnection, taskQueue: "agents", agents: [weather], model: openaiModel() });
const connection = await Connection.connect({ address });
await worker.runUntil(async () => {
  // Any service starts and reads runs through a client.
  const agents = new AgentClient({ connection, taskQueue: "agents" });
  const result = await agents.run(weather, { prompt: "Weather in Oslo?", runId: "ticket-123", principal: { id: "alice" } });
  console.log(result); // { status: "completed", text, turnsUsed, usage, messageCount }
  const { messages } = await agents.listMessages({ runId: "ticket-123" }); // the transcript, a page at a time
  console.log(`${messages.length} messages, the last: ${messages.at(-1)?.content}`);
});
await Promise.all([connection.close(), workerConnection.close()]);
