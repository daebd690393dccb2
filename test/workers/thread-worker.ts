/**
 * A thread worker in its own process, so a test can SIGKILL it mid-turn. Env:
 * TEMPORAL_ADDRESS, NAMESPACE, TASK_QUEUE, MODEL_URL; DIRECT=1 streams on a direct
 * transport (an endpoint of its own on loopback). Prints "ready" when polling.
 */
import { DefaultLogger, NativeConnection, Runtime } from "@temporalio/worker";
import { defineAgent, directStreamTransport } from "../../src/index.js";
import { openaiModel, createAgentWorker } from "../../src/worker.js";
import { inheritedWorkflowBundle } from "../workflow-bundle.js";

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

/** A short heartbeat timeout: a call on a killed worker is retried elsewhere within seconds. */
export const storyteller = defineAgent({ id: "storyteller", model: "gpt-4.1-mini", system: "You tell stories.", timeouts: { heartbeat: "2s" } });
/**
 * A heartbeat timeout long enough for a test to stop the turn between a kill and the timeout,
 * however loaded the machine: at 8 s, a stop slowed by three busy lanes once came too late.
 */
export const patientStoryteller = defineAgent({ id: "patient-storyteller", model: "gpt-4.1-mini", system: "You tell stories.", timeouts: { heartbeat: "15s" } });

Runtime.install({ logger: new DefaultLogger("ERROR") });
const connection = await NativeConnection.connect({ address: env("TEMPORAL_ADDRESS") });
const worker = await createAgentWorker({
  connection,
  namespace: env("NAMESPACE"),
  taskQueue: env("TASK_QUEUE"),
  agents: [storyteller, patientStoryteller],
  model: openaiModel({ baseURL: env("MODEL_URL"), apiKey: "test" }),
  ...(process.env.DIRECT === "1" ? { threads: { stream: { transport: directStreamTransport({ host: "127.0.0.1" }) } } } : {}),
  ...inheritedWorkflowBundle(),
});
const running = worker.run();
console.log("ready");
process.on("SIGTERM", () => worker.shutdown());
await running;
await connection.close();
