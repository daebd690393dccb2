import { Connection } from "@temporalio/client";
import { NativeConnection } from "@temporalio/worker";
import type { Principal, StreamUpdate } from "durable-agents";
import { address } from "../docs-support/env.js";
// The reader's own services, as small stand-ins: a CRM, a PDF renderer, and a Slack whose
// post carries the manager's link, which the manager clicks a moment later (`onAction`).
const crm = { find: async (email: string, _options: { signal: AbortSignal }) => ({ name: email.split("@")[0]!, orders: ["1234"] }) };
const pdf = { render: async ({ id }: { id: string }) => ({ url: `https://files.example.com/${id}.pdf` }) };
type Link = { threadId: string; toolCallId: string; answerToken: string };
let onLink: (link: Link) => Promise<unknown> = async () => undefined;
async function click(link: Link): Promise<void> {
  // An answer sent before the callback returned is refused with retryLater: send it again shortly.
  for (;;) {
    try {
      await onLink(link);
      return;
    } catch (err) {
      if ((err as { fields?: { retryLater?: boolean } }).fields?.retryLater !== true) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
const slack = {
  post: async (text: string) => {
    console.log(`slack: ${text.slice(0, text.indexOf(" → "))}`);
    const [, threadId, toolCallId, answerToken] = /\/threads\/([^/]+)\/calls\/([^?]+)\?token=(.+)$/.exec(text)!;
    void click({ threadId: threadId!, toolCallId: toolCallId!, answerToken: answerToken! }).catch((err: unknown) => console.error("the manager's answer failed:", err));
  },
  onAction: (handler: (link: Link) => Promise<unknown>) => void (onLink = handler),
};
const transitions: string[] = [];
const notifyUi = (_threadId: string, status: string, previousStatus: string | undefined) => void transitions.push(`${previousStatus}→${status}`);
const managerOf = (_threadId: string) => "mia";
const owns = (principalId: string | undefined, _threadId: string) => principalId === "ann";
let shown = 0;
const show = (updates: StreamUpdate[]) => void (shown += updates.length);
const user: Principal = { id: "ann" };
const manager: Principal = { id: "mia" };
const connection = await Connection.connect({ address });
const workerConnection = await NativeConnection.connect({ address });
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
const workers = [
  await createAgentWorker({ connection: workerConnection, taskQueue: "agents", agents: [support], model: openaiModel(),
    deferral: { secret: process.env.DEFERRAL_SECRET! }, // mints askManager's answer tokens
    threads: { onStatusChange: ({ threadId, status, previousStatus }) => notifyUi(threadId, status, previousStatus) } }),
  await createToolWorker({ connection: workerConnection, taskQueue: "pdf", agents: [support], concurrency: 2 }), // a work pool of 2
];
const running = workers.map((worker) => worker.run()); // until worker.shutdown()

// any service
const threads = new ThreadsClient({ connection, taskQueue: "agents", agent: support,
  authorize: (req) => // exactly `true` or AI1021
    req.operation === "thread.create" ? req.principal !== undefined
      : req.operation === "thread.toolResult" && req.toolName === "askManager" ? managerOf(req.threadId) === req.principal?.id
      : owns(req.principal?.id, req.threadId ?? (req.runId ?? req.scheduleId)) });
// the manager answers from askManager's link, in another process, minutes or days later
slack.onAction(({ threadId, toolCallId, answerToken }) =>
  threads.addToolResult({ threadId, toolCallId, result: { approved: true }, answerToken, principal: manager }));

const { threadId } = await threads.createThread({ prompt: "Where is my order?", principal: user });
await threads.sendMessage({ threadId, prompt: "It was order 1234", principal: user }); // queued while the turn runs
await threads.stopThread({ threadId, principal: user }); // aborts the model request and tools now
await threads.resumeThread({ threadId, principal: user }); // continues exactly there
for await (const batch of threads.followUpdates({ threadId, principal: user, until: (b) => b.status === "completed" })) show(batch.updates); // from any process
// ---end---
const settled = await threads.settled({ threadId, principal: user });
const { messages } = await threads.listMessages({ threadId, principal: user });
console.log(`status: ${settled.status}; ${shown} entries shown; statuses ${transitions.join(", ")}`);
console.log(`transcript: ${messages.map((m) => (m.role === "assistant" && m.tool_calls ? `assistant→${m.tool_calls.map((c) => c.function.name).join("+")}` : m.role === "tool" ? `tool:${m.content}` : `${m.role}:${m.content}`)).join(" | ")}`);
for (const worker of workers) worker.shutdown();
await Promise.all(running);
await Promise.all([connection.close(), workerConnection.close()]);
