import { Connection } from "@temporalio/client";
import { NativeConnection } from "@temporalio/worker";
import type { AgentDefinition } from "durable-agents";
declare const support: AgentDefinition;
// ---cut---
import { AgentClient, aesGcmCodec } from "durable-agents";
import { createAgentWorker, openaiModel } from "durable-agents/worker";

const dataConverter = { payloadCodecs: [aesGcmCodec({ keys: { "2026-11": process.env.PAYLOAD_KEY! }, current: "2026-11" })] };
await createAgentWorker({
  connection: await NativeConnection.connect(), taskQueue: "agents", agents: [support], model: openaiModel(),
  worker: { dataConverter }, // the worker's own queries and signals use it too
});
const agents = new AgentClient({ connection: await Connection.connect(), taskQueue: "agents", dataConverter }); // threads (agents.threads) and the HTTP front door go through it
