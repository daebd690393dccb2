/**
 * What the docs' examples (examples/docs/) hold above and below the part a page shows: the
 * Temporal server and model they run against, and a worker for the agents an example only
 * calls. `test/docs-examples.test.ts` runs each example as its own process, with
 * TEMPORAL_ADDRESS and OPENAI_BASE_URL naming the suite's server and its scripted model. By
 * hand: `npx tsx src/cli/main.ts dev` in one terminal, then
 * `OPENAI_API_KEY=… npx tsx examples/docs/<name>.ts` (DEFERRAL_SECRET and PAYLOAD_KEY where
 * an example reads them).
 */
import { once } from "node:events";
import { readFileSync } from "node:fs";
import type { AddressInfo, Server } from "node:net";
import { fileURLToPath } from "node:url";
import { Connection } from "@temporalio/client";
import { NativeConnection, type BundleOptions, type Worker } from "@temporalio/worker";
import { AgentClient, type AgentClientOptions, type AgentDefinition } from "durable-agents";
import { createAgentWorker, openaiModel, type AgentWorkerOptions } from "durable-agents/worker";

export const address = process.env.TEMPORAL_ADDRESS ?? "localhost:7233";
export const namespace = process.env.TEMPORAL_NAMESPACE ?? "default";

/**
 * Where `server` (what `serve()` of @hono/node-server returned) answers, once it listens: the
 * examples take PORT=0 for any free port (how the test runs them, so no other process can
 * take a port between a probe and the bind), so the port is the one it got, not PORT.
 */
export async function listeningUrl(server: Server): Promise<string> {
  if (!server.listening) await once(server, "listening");
  return `http://localhost:${(server.address() as AddressInfo).port}`;
}

/** The agent workflows a runner bundled once (the test's global setup), so this process need not bundle them again. */
export function prebuiltBundle(): Pick<AgentWorkerOptions, "workflowBundle"> {
  const path = process.env.DURABLE_AGENTS_TEST_BUNDLE;
  return path ? { workflowBundle: JSON.parse(readFileSync(path, "utf8")) as NonNullable<AgentWorkerOptions["workflowBundle"]> } : {};
}

/**
 * Bundler options for the workflow examples: they import `durable-agents/workflow` as a
 * reader's code does, which in this repository is its source (tsx finds it through
 * tsconfig's paths; Temporal's bundler is told here).
 */
export function sourceImports(): Pick<BundleOptions, "webpackConfigHook"> {
  const workflowEntry = fileURLToPath(new URL("../../src/workflow.ts", import.meta.url));
  return {
    webpackConfigHook: (config) => ({ ...config, resolve: { ...config.resolve, alias: { ...(config.resolve?.alias as Record<string, string> | undefined), "durable-agents/workflow$": workflowEntry } } }),
  };
}

export interface RunningWorker {
  worker: Worker;
  /** Stops the worker and closes its connection. */
  close(): Promise<void>;
}

/** A worker for `agents` on `taskQueue` (default `"agents"`), running until `close()`. */
export async function startWorker(agents: AgentDefinition[], options: Partial<Omit<AgentWorkerOptions, "connection" | "agents">> = {}): Promise<RunningWorker> {
  const connection = await NativeConnection.connect({ address });
  const worker = await createAgentWorker({ taskQueue: "agents", namespace, model: openaiModel(), ...prebuiltBundle(), ...options, connection, agents });
  const running = worker.run();
  return {
    worker,
    async close() {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}

/**
 * An `AgentClient` on the task queue `"agents"` whose first `run()` or `start()` starts a
 * worker for the agent it is given (sub-agents register with it): for examples that
 * define an agent and run it in the part a page shows. `closeAll()` stops the worker and
 * closes the connections.
 */
export async function clientWithWorker(options: Partial<AgentClientOptions> = {}, worker: Partial<Omit<AgentWorkerOptions, "connection" | "agents">> = {}) {
  const connection = await Connection.connect({ address });
  const agents = new AgentClient({ connection, namespace, taskQueue: "agents", ...options });
  let started: Promise<RunningWorker> | undefined;
  const serve = (agent: AgentDefinition | string) => {
    if (typeof agent !== "string") started ??= startWorker([agent], { deferral: options.deferral?.secret ? { secret: options.deferral.secret } : undefined, ...worker });
    return started;
  };
  const proxied = new Proxy(agents, {
    get(target, property, receiver) {
      if (property === "run" || property === "start") {
        return async (agent: AgentDefinition | string, ...rest: unknown[]) => {
          await serve(agent);
          return (Reflect.get(target, property, receiver) as (...args: unknown[]) => unknown).call(target, agent, ...rest);
        };
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    agents: proxied,
    async closeAll() {
      await (await started)?.close();
      await connection.close();
    },
  };
}
