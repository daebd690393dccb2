/**
 * One worker process of bench throughput, so that its CPU and memory are its own: the
 * SDK's agent worker (WORKER_KIND=sdk) or the bare workflows' worker (WORKER_KIND=bare) on
 * TASK_QUEUE at TEMPORAL_ADDRESS/NAMESPACE, the model at MODEL_URL, the workflow bundle read
 * from BUNDLE_PATH, at most MAX_CACHED workflows cached. Prints "ready" once polling; stops
 * on SIGTERM (cleanly, so that `--cpu-prof` writes its profiles), or when its stdin closes.
 */
import { readFileSync } from "node:fs";
import { DefaultLogger, NativeConnection, Runtime, Worker, type WorkflowBundleWithSourceMap } from "@temporalio/worker";
import { createAgentWorker, openaiModel } from "../src/worker.js";
import { createBareActivities } from "./bare/activities.js";
import { MODEL } from "./lib.js";
import { throughputAgent, throughputTool } from "./throughput-agent.js";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

Runtime.install({ logger: new DefaultLogger("WARN") });
const connection = await NativeConnection.connect({ address: env("TEMPORAL_ADDRESS") });
const common = {
  connection,
  namespace: env("NAMESPACE"),
  taskQueue: env("TASK_QUEUE"),
  workflowBundle: JSON.parse(readFileSync(env("BUNDLE_PATH"), "utf8")) as WorkflowBundleWithSourceMap,
};
const maxCachedWorkflows = Number(env("MAX_CACHED"));
const worker =
  env("WORKER_KIND") === "sdk"
    ? await createAgentWorker({
        ...common,
        agents: [throughputAgent],
        model: openaiModel({ baseURL: env("MODEL_URL"), apiKey: "bench" }),
        worker: { maxCachedWorkflows },
      })
    : await Worker.create({
        ...common,
        maxCachedWorkflows,
        activities: createBareActivities({ baseURL: env("MODEL_URL"), model: MODEL, tools: [throughputTool.bare] }),
      });
const running = worker.run();
console.log("ready");
process.on("SIGTERM", () => worker.shutdown());
// The bench holds our stdin: it closes when the bench is gone, killed or crashed.
process.stdin.on("close", () => {
  if (worker.getState() === "RUNNING") worker.shutdown();
});
process.stdin.resume();
await running;
process.stdin.destroy();
await connection.close();
