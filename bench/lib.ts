/**
 * Shared bench plumbing: the agent stack the tests also use (test/agent-stack.ts) with an SDK
 * worker and a bare (hand-written) worker side by side, the tool both paths run, and history sizes.
 */
import { randomUUID } from "node:crypto";
import { createServer, type AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Client } from "@temporalio/client";
import proto from "@temporalio/proto";
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type WorkerOptions } from "@temporalio/worker";
import { z } from "zod";
import { timestampMs } from "../src/core/duration.js";
import { defineAgent, defineTool, type AgentDefinition } from "../src/index.js";
import type { Responder, ScriptedModelServer } from "../src/testing/index.js";
import { startAgentStack, type AgentStack, type AgentStackOptions } from "../test/agent-stack.js";
import { createBareActivities, type BareTool } from "./bare/activities.js";
import type { bareAgent } from "./bare/workflows.js";

const { History, HistoryEvent } = proto.temporal.api.history.v1;
const { EventType } = proto.temporal.api.enums.v1;

export const progress = (line: string): void => {
  process.stderr.write(`[bench] ${line}\n`);
};

export const MODEL = "bench-model";
const SYSTEM = "You research questions with the search tool, then answer briefly.";
// The scripted server would otherwise estimate usage by scanning every request's thread.
export const USAGE = { promptTokens: 100, completionTokens: 10 };

/** The one tool of the bench conversations: a search returning `resultBytes` of text. */
export function searchTool(resultBytes: number) {
  const handler = ({ query }: { query: string }): string => searchResults(query, resultBytes);
  const description = "Searches the knowledge base and returns matching passages.";
  const sdk = defineTool({ name: "search", description, input: z.object({ query: z.string() }), handler });
  const bare: BareTool = {
    spec: {
      type: "function",
      function: {
        name: "search",
        description,
        parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"], additionalProperties: false },
      },
    },
    handler,
  };
  return { sdk, bare };
}

const WORDS = "agent durable workflow history replay activity worker thread model tool result query signal update resume".split(" ");

/** The approval every parking bench defers on; the token each run's deferral handed out lands in `tokens`, by run id, as an approval link would carry it. */
export function approvalTool(tokens: Map<string, string>) {
  return defineTool({
    name: "askApproval",
    description: "Ask a human to approve a payout",
    input: z.object({ amount: z.number() }),
    handler: async (_input, ctx) => {
      tokens.set(ctx.runId, ctx.deferral.token);
      return ctx.defer({ schema: z.object({ approved: z.boolean() }) });
    },
  });
}

/** Deterministic passage text, different per query, exactly `bytes` ASCII characters. */
export function searchResults(query: string, bytes: number): string {
  let seed = [...query].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0, 7);
  let text = `Results for "${query}":\n`;
  for (let n = 1; text.length < bytes; n++) {
    const words: string[] = [];
    for (let i = 0; i < 12; i++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      words.push(WORDS[seed % WORDS.length] ?? "agent");
    }
    text += `${n}. ${words.join(" ")}.\n`;
  }
  return text.slice(0, bytes);
}

/** `turns` model calls: one search per turn, then a text answer on the last. */
export function toolLoop(turns: number): Responder {
  return (_request, turn) =>
    turn < turns - 1
      ? { toolCalls: [{ name: "search", arguments: { query: `topic ${turn}` } }], usage: USAGE }
      : { text: `Answer after ${turns} turns.`, usage: USAGE };
}

export interface Bench {
  model: ScriptedModelServer;
  client: Client;
  /** The SDK worker's agent and task queue, for benches that drive it themselves. */
  agent: AgentDefinition;
  sdkQueue: string;
  /** Runs a conversation through the SDK's agentRun; resolves to its workflow id once done. */
  runSdk(prompt: string): Promise<string>;
  /** Runs it through the bare workflow; resolves to its workflow id once done. */
  runBare(prompt: string): Promise<string>;
  /** The stack both workers run on, for benches that add a worker of their own (e.g. with a codec). */
  stack: AgentStack;
  close(): Promise<void>;
}

let runtimeInstalled = false;

/** Installs Temporal's runtime once per process, logging only warnings and worse. */
export function installRuntime(): void {
  if (runtimeInstalled) return;
  Runtime.install({ logger: new DefaultLogger("WARN") });
  runtimeInstalled = true;
}

/** The agent stack on a server of its own (or TEMPORAL_ADDRESS's), after {@link installRuntime}. */
export async function startBenchStack(connection?: AgentStackOptions["connection"]): Promise<AgentStack> {
  installRuntime();
  return startAgentStack({ log: (line) => progress(`temporal: ${line}`), connection });
}

/** The bare worker on a fresh task queue, running until the stack closes; resolves to that queue. */
export async function startBareWorker(stack: AgentStack, tools: BareTool[], interceptors?: WorkerOptions["interceptors"]): Promise<string> {
  const taskQueue = `bench-bare-${randomUUID()}`;
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL("./bare/workflows.ts", import.meta.url)),
    logger: new DefaultLogger("WARN"),
  });
  const worker = await Worker.create({
    connection: stack.native,
    namespace: stack.namespace,
    taskQueue,
    workflowBundle,
    activities: createBareActivities({ baseURL: stack.model.url, model: MODEL, tools }),
    interceptors,
  });
  void stack.run(worker);
  return taskQueue;
}

/** A Temporal server, the scripted model server, and an SDK worker and a bare worker in this process. */
export async function startBench(options: { maxTurns: number; toolResultBytes: number }): Promise<Bench> {
  // The client's own 128 MB default is set under a key grpc-js ignores, leaving 4 MB:
  // too small for one page of a naive long conversation's history.
  const stack = await startBenchStack({ channelArgs: { "grpc.max_receive_message_length": 256 * 1024 * 1024 } });
  try {
    const { model, namespace } = stack;
    const client = new Client({ connection: stack.connection, namespace });
    const tool = searchTool(options.toolResultBytes);
    const agent: AgentDefinition = defineAgent({ id: "bench", model: MODEL, system: SYSTEM, tools: [tool.sdk], maxTurns: options.maxTurns });
    const sdkQueue = `bench-sdk-${randomUUID()}`;
    const [{ agents }, bareQueue] = await Promise.all([
      stack.worker([agent], { taskQueue: sdkQueue, client: { client } }),
      startBareWorker(stack, [tool.bare]),
    ]);
    // Scripted requests keep whole threads; drop them so long benches do not hoard memory.
    const forgetRequests = (): void => void model.requests.splice(0);
    return {
      model,
      client,
      agent,
      sdkQueue,
      async runSdk(prompt) {
        const runId = `sdk-${randomUUID()}`;
        await agents.run(agent, { prompt, runId });
        forgetRequests();
        return runId;
      },
      async runBare(prompt) {
        const workflowId = `bare-${randomUUID()}`;
        await client.workflow.execute<typeof bareAgent>("bareAgent", {
          workflowId,
          taskQueue: bareQueue,
          args: [{ system: SYSTEM, prompt, maxTurns: options.maxTurns }],
        });
        forgetRequests();
        return workflowId;
      },
      stack,
      close: () => stack.close(),
    };
  } catch (err) {
    await stack.close();
    throw err;
  }
}

export interface HistoryStats {
  historyBytes: number;
  events: number;
  /** Encoded bytes per event type, largest first: where the history's size comes from. */
  byType: Array<{ type: string; count: number; bytes: number }>;
}

/** The closed workflow's history size as Temporal stores it (protobuf-encoded). */
export async function historyStats(client: Client, workflowId: string): Promise<HistoryStats> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const byType = new Map<string, { type: string; count: number; bytes: number }>();
  for (const event of events) {
    const type = EventType[event.eventType ?? 0] ?? String(event.eventType);
    const entry = byType.get(type) ?? { type: type.replace(/^EVENT_TYPE_/, ""), count: 0, bytes: 0 };
    entry.count += 1;
    entry.bytes += HistoryEvent.encode(event).finish().length;
    byType.set(type, entry);
  }
  return {
    historyBytes: History.encode(history).finish().length,
    events: events.length,
    byType: [...byType.values()].sort((a, b) => b.bytes - a.bytes),
  };
}

/**
 * Total time the run's workflow and activity tasks sat between scheduled and started:
 * the server's dispatch wait, which both paths pay alike and which dilutes their ratio.
 */
export async function serverWaitMs(client: Client, workflowId: string): Promise<number> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const at = new Map(events.map((e) => [Number(e.eventId), timestampMs(e.eventTime) ?? NaN]));
  let wait = 0;
  for (const e of events) {
    const scheduledId = (e.workflowTaskStartedEventAttributes ?? e.activityTaskStartedEventAttributes)?.scheduledEventId;
    if (scheduledId != null) wait += (timestampMs(e.eventTime) ?? NaN) - (at.get(Number(scheduledId)) ?? NaN);
  }
  return wait;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Nearest-rank percentile (`p` in 0..100). */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** A positive integer from an env var, or `fallback` when unset or not one. */
export function envInt(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === "") return fallback;
  return positiveInt(name, value);
}

/** `value` as a positive integer, or an error naming `name`. */
export function positiveInt(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(value)}`);
  return n;
}

export const round = (value: number, digits = 2): number => Number(value.toFixed(digits));

/** A conversation key the scripted server has not seen (it keys by the first user message). */
export const prompt = (label: string): string => `${label} ${randomUUID()}`;

/** Bytes of the model's output in turn `turn` of {@link toolLoop}: its one search call as the wire carries it. */
function toolLoopOutputBytes(turn: number): number {
  return Buffer.byteLength(JSON.stringify({ name: "search", arguments: JSON.stringify({ query: `topic ${turn}` }) }));
}

/**
 * History bytes a turn adds ÷ the new content of that turn (its tool result plus the
 * model's output), from two {@link toolLoop} runs of different lengths: the difference
 * leaves out what every run stores once (start, system prompt, final answer).
 * 1 would be storing each new byte once and nothing else.
 */
export function bytesPerNewByte(short: { turns: number; historyBytes: number }, long: { turns: number; historyBytes: number }, toolResultBytes: number): number {
  let newBytes = 0;
  // toolLoop's tool turns are 0 .. turns - 2; the longer run has these extra ones.
  for (let turn = short.turns - 1; turn < long.turns - 1; turn++) newBytes += toolResultBytes + toolLoopOutputBytes(turn);
  return (long.historyBytes - short.historyBytes) / newBytes;
}

export { isStrayClientRetry } from "../src/testing/stray-retry.js";

/** A TCP port nobody listens on now (for a server this bench starts). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
