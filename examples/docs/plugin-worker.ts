import type { PayloadCodec } from "@temporalio/common";
import type { AgentDefinition } from "durable-agents";
declare const address: string;
declare const myActivities: Record<string, (...args: any[]) => Promise<unknown>>;
declare const encryptionCodec: PayloadCodec;
declare const weather: AgentDefinition;
// ---cut---
import { fileURLToPath } from "node:url";
import { NativeConnection, Worker } from "@temporalio/worker";
import { durableAgentsPlugin, openaiModel } from "durable-agents/worker";

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const worker = await Worker.create({
  connection: await NativeConnection.connect({ address }),
  taskQueue: "agents",
  workflowsPath: here("./workflows.js"), // yours: the agent workflows join them in the bundle
  activities: myActivities,
  dataConverter: { payloadCodecs: [encryptionCodec] }, // reaches the SDK's own queries and signals too
  interceptors: { workflowModules: [here("./otel-interceptors.js")] },
  plugins: [durableAgentsPlugin({ agents: [weather], model: openaiModel() })],
});
await worker.run();
