import { Connection } from "@temporalio/client";
import { NativeConnection } from "@temporalio/worker";
import type { Principal, StreamUpdate } from "durable-agents";
declare const crm: { find(email: string, options: { signal: AbortSignal }): Promise<{ name: string }> };
declare const slack: { post(text: string): Promise<void> };
declare const pdf: { render(input: { id: string }): Promise<{ url: string }> };
declare function notifyUi(threadId: string, status: string, previousStatus: string | undefined): void;
declare function managerOf(threadId: string): string;
declare function owns(principalId: string | undefined, threadId: string): boolean;
declare function show(updates: StreamUpdate[]): void;
declare const user: Principal;
declare const manager: Principal;
declare const toolCallId: string;
declare const answerToken: string;
const connection = await Connection.connect();
const workerConnection = await NativeConnection.connect();
// ---cut---
import { z } from "zod";
import { defineAgent, defineAsyncTool, defineTool, ThreadsClient } from "durable-agents";
import { createAgentWorker, createToolWorker, openaiModel } from "durable-agents/worker";

const lookup = defineTool({
  name: "lookup", description: "Looks a customer up", input: z.object({ email: z.string() }),
  retry: { maxAttempts: 5, backoff: { strategy: "exponential", initialDelay: "500ms", maxDelay: "8s", jitter: true } },
  handler: ({ email }, ctx) => crm.find(email, { signal: ctx.signal }),
});
const askManager = defineAsyncTool({
  name: "askManager", description: "Asks a manager; the answer comes later", input: z.object({ question: z.string() }),
  // Runs durably (at least once, with ctx.idempotencyKey); whoever answers calls addToolResult
  // with the link's answer token (the same on every attempt).
  callback: ({ question }, ctx) =>
    slack.post(`${question} → answer at /threads/${ctx.threadId}/calls/${ctx.toolCallId}?token=${ctx.answerToken}`),
});
const renderPdf = defineTool({ name: "renderPdf", description: "Renders a PDF", input: z.object({ id: z.string() }), queue: "pdf", handler: pdf.render });
const support = defineAgent({ id: "support", model: "gpt-4.1-mini", system: "You help customers.", tools: [lookup, askManager, renderPdf] });

// worker processes
await createAgentWorker({ connection: workerConnection, taskQueue: "agents", agents: [support], model: openaiModel(),
  deferral: { secret: process.env.DEFERRAL_SECRET! }, // mints askManager's answer tokens
  threads: { onStatusChange: ({ threadId, status, previousStatus }) => notifyUi(threadId, status, previousStatus) } });
await createToolWorker({ connection: workerConnection, taskQueue: "pdf", agents: [support], concurrency: 2 }); // a work pool of 2

// any service
const threads = new ThreadsClient({ connection, taskQueue: "agents", agent: support,
  authorize: (req) => // exactly `true` or AI1021
    req.operation === "thread.create" ? req.principal !== undefined
      : req.operation === "thread.toolResult" && req.toolName === "askManager" ? managerOf(req.threadId) === req.principal?.id
      : owns(req.principal?.id, req.threadId ?? req.runId) });
const { threadId } = await threads.createThread({ prompt: "Where is my order?", principal: user });
await threads.sendMessage({ threadId, prompt: "It was order 1234", principal: user }); // queued while the turn runs
for await (const batch of threads.followUpdates({ threadId, principal: user })) show(batch.updates); // from any process
await threads.stopThread({ threadId, principal: user }); // aborts the model request and tools now
await threads.resumeThread({ threadId, principal: user }); // continues exactly there
await threads.addToolResult({ threadId, toolCallId, result: { approved: true }, answerToken, principal: manager });
