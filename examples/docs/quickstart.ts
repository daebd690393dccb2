declare function fetchWeather(city: string, options: { signal: AbortSignal; idempotencyKey: string }): Promise<{ celsius: number }>;
// ---cut---
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
  handler: async ({ city }, ctx) => fetchWeather(city, { signal: ctx.signal, idempotencyKey: ctx.idempotencyKey }),
});

export const weather = defineAgent({ id: "weather", model: "gpt-4.1-mini", system: "Answer with tools.", tools: [getWeather], maxTurns: 8 });

// worker process
const worker = await createAgentWorker({ connection: await NativeConnection.connect({ address }), taskQueue: "agents", agents: [weather], model: openaiModel() });
void worker.run();

// any service
const agents = new AgentClient({ connection: await Connection.connect({ address }), taskQueue: "agents" });
const result = await agents.run(weather, { prompt: "Weather in Oslo?", runId: "ticket-123", principal: { id: "alice" } });
// { status: "completed", text, turnsUsed, usage, messageCount }
const { messages, cursor } = await agents.listMessages({ runId: "ticket-123" }); // the transcript, a page at a time
