/**
 * A worker for the approval agents in its own process, so a test can SIGKILL it while
 * runs are deferred. Env: TEMPORAL_ADDRESS, TASK_QUEUE, MODEL_URL, SECRET.
 */
import { DefaultLogger, NativeConnection, Runtime } from "@temporalio/worker";
import { openaiModel } from "../../src/model/openai.js";
import { createAgentWorker } from "../../src/worker/create-agent-worker.js";
import { payoutAgent } from "../fixtures/approvals.js";

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

Runtime.install({ logger: new DefaultLogger("WARN") });
const connection = await NativeConnection.connect({ address: env("TEMPORAL_ADDRESS") });
const worker = await createAgentWorker({
  connection,
  taskQueue: env("TASK_QUEUE"),
  agents: [payoutAgent],
  model: openaiModel({ baseURL: env("MODEL_URL"), apiKey: "test" }),
  deferral: { secret: env("SECRET") },
});
const running = worker.run();
console.log("ready");
process.on("SIGTERM", () => worker.shutdown());
await running;
await connection.close();
