/**
 * No input wedges a run or a thread: hostile tool names, defer misuse, malformed model
 * answers and garbage updates, signals and queries each end in a typed refusal or a tool
 * error the model reads, never in a failed workflow task (which Temporal retries forever).
 */
import { WorkflowUpdateFailedError, type Client } from "@temporalio/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentClient } from "../src/client/agent-client.js";
import { startAgentRun } from "../src/client/start-run.js";
import { defineAgent } from "../src/core/define-agent.js";
import { defineTool } from "../src/core/define-tool.js";
import { completed, SECRET, startHarness, uid, type Harness } from "./harness.js";
import { threadRig, type ThreadRig } from "./thread-support.js";
import type { Model, ModelRequest } from "../src/core/model.js";
import { createAgentWorker } from "../src/worker/create-agent-worker.js";
import { ThreadsClient } from "../src/threads/threads-client.js";
import { cancelUpdate, deferralQuery, replaceStepStateUpdate, resumeUpdate, threadQuery } from "../src/core/wire/run.js";
import * as threadWire from "../src/core/wire/thread.js";

let h: Harness;
let agents: AgentClient;
let rig: ThreadRig;
let taskQueue: string;

const echo = defineTool({
  name: "echo",
  description: "Echoes its text",
  input: z.object({ text: z.string() }),
  handler: ({ text }) => text,
});

/** A tool on a queue of its own: a run then looks the called name up among the queued tools. */
const elsewhere = defineTool({
  name: "elsewhere",
  description: "Runs on another queue",
  input: z.object({}),
  queue: "hostile-elsewhere",
  handler: () => "ran elsewhere",
});

/** How often each run's misdefer handler ran: a refused deferral must not run its side effects again. */
const misdeferCalls = new Map<string, number>();

/** Defers with one kind of mistake in its options. */
const misdefer = defineTool({
  name: "misdefer",
  description: "Defers wrongly",
  input: z.object({ mistake: z.enum(["date", "custom", "invalidSchema", "badPattern", "danglingRef", "ttl", "options"]) }),
  handler: ({ mistake }, ctx) => {
    misdeferCalls.set(ctx.runId, (misdeferCalls.get(ctx.runId) ?? 0) + 1);
    const options = {
      date: { schema: z.object({ when: z.date() }) },
      custom: { schema: z.custom<string>((v) => typeof v === "string") },
      invalidSchema: { schema: { type: "object", enum: 5 } },
      badPattern: { schema: { type: "string", pattern: "(" } },
      danglingRef: { schema: { $ref: "#/$defs/nowhere" } },
      ttl: { ttl: "300000y" },
      options: null,
    }[mistake];
    return ctx.defer(options as never);
  },
});

const hostileAgent = defineAgent({
  id: "hostile",
  model: "gpt-4.1-mini",
  system: "You are tested with hostile input.",
  tools: [echo, elsewhere, misdefer],
  maxTurns: 6,
});

/** Names every plain object answers to through its prototype. */
const INHERITED_NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"];

/** The failed workflow tasks in an execution's history: each one a task Temporal retries until it passes. */
export async function workflowTaskFailures(client: Client, workflowId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) => (e.workflowTaskFailedEventAttributes ? [e.workflowTaskFailedEventAttributes.failure?.message ?? "(no message)"] : []));
}

/** What the custom model answers, by the conversation's first user message. */
const customAnswers = new Map<string, (request: ModelRequest) => unknown>();

/** A `Model` that returns whatever a test scripted, well-formed or not. */
const customModel: Model = {
  async complete(request) {
    const prompt = request.messages.find((m) => m.role === "user")?.content ?? "";
    const answer = customAnswers.get(prompt);
    if (!answer) throw new Error(`no custom answer for ${JSON.stringify(prompt)}`);
    return answer(request) as never;
  },
};

let custom: { agents: AgentClient; threads: ThreadsClient };

/**
 * The code a refused update or query carries, or "accepted". An update's arrives as its
 * failure's `type`; a query's failure crosses gRPC as a message only, which every typed
 * error starts with its code.
 */
export async function refusalCode(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
    return "accepted";
  } catch (err) {
    const cause = err instanceof WorkflowUpdateFailedError ? err.cause : err;
    const message = (cause as Error)?.message ?? String(cause);
    return (cause as { type?: string }).type ?? /^\[([A-Z]{2}\d{4})\]/.exec(message)?.[1] ?? `untyped: ${message}`;
  }
}

beforeAll(async () => {
  h = await startHarness();
  {
    // The custom model gives up after one attempt, so a malformed answer reports at once.
    const customQueue = uid("tq-custom");
    const worker = await createAgentWorker({
      connection: h.native,
      namespace: h.namespace,
      taskQueue: customQueue,
      agents: [hostileAgent],
      model: customModel,
      workflowBundle: h.bundle,
      threads: { modelMaxAttempts: 1 },
    });
    void h.run(worker);
    const client = new AgentClient({ connection: h.connection, namespace: h.namespace, taskQueue: customQueue, threads: { agent: hostileAgent } });
    custom = { agents: client, threads: client.threads };
  }
  ({ agents, taskQueue } = await h.worker([hostileAgent], { deferral: { secret: SECRET } }));
  rig = await threadRig(h, [hostileAgent]);
});
afterAll(() => h?.close());

describe("tool names the model chooses", () => {
  it.each([3, 2])("are looked up as own properties only (run version %i)", async (version) => {
    const prompt = uid("inherited names");
    h.model.script(prompt, [
      { toolCalls: INHERITED_NAMES.map((name) => ({ name, arguments: {} })) },
      {
        check: (req) => {
          const results = req.messages.filter((m) => m.role === "tool").map((m) => m.content);
          expect(results).toHaveLength(INHERITED_NAMES.length);
          for (const content of results) expect(content).toMatch(/^Error: unknown tool/);
        },
        text: "none of those exist",
      },
    ]);
    const runId = uid("run");
    // Version 2 runs schedule the legacy activities, which look a tool's queue up by name.
    await startAgentRun(agents.client, taskQueue, runId, { agentId: hostileAgent.id, prompt, version });
    const result = await completed(agents.handle(runId).settled());
    expect(result.text).toBe("none of those exist");
    expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
    h.model.assertNoFailures();
  });

  it("are looked up as own properties only in a thread", async () => {
    const prompt = uid("inherited names in a thread");
    h.model.script(prompt, [{ toolCalls: INHERITED_NAMES.map((name) => ({ name, arguments: {} })) }, { text: "none of those exist" }]);
    const { threadId } = await rig.threads.createThread({ prompt });
    const done = await rig.threads.waitUntilSettled({ threadId });
    expect(done.status).toBe("completed");
    expect(await workflowTaskFailures(rig.threads.client, threadId)).toEqual([]);
    h.model.assertNoFailures();
  });
});

describe("ctx.defer() misuse", () => {
  it.each(["date", "custom", "invalidSchema", "badPattern", "danglingRef", "ttl", "options"])(
    "(%s) is refused with AI1001 once: the model reads it and the run goes on",
    async (mistake) => {
      const prompt = uid(`misdefer ${mistake}`);
      h.model.script(prompt, [
        { toolCalls: [{ name: "misdefer", arguments: { mistake } }] },
        {
          check: (req) => expect(req.messages.at(-1)).toMatchObject({ role: "tool", content: expect.stringMatching(/^Error: .*ctx\.defer\(\) refused: \[AI1001\]/) }),
          text: "I could not ask for approval",
        },
      ]);
      const runId = uid("run");
      const result = await completed(agents.run(hostileAgent, { prompt, runId }));
      expect(result.text).toBe("I could not ask for approval");
      // Not retried: the handler's side effects ran once.
      expect(misdeferCalls.get(runId)).toBe(1);
      expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
      h.model.assertNoFailures();
    },
  );
});

const usage = { promptTokens: 1, completionTokens: 1, totalTokens: 2 };
const answer = (text: string) => ({ message: { role: "assistant", content: text }, usage });

/** Answers a custom model can give that a workflow must never see. */
export const MALFORMED_ANSWERS: Record<string, unknown> = {
  nothing: undefined,
  null: null,
  "no message": { usage },
  "content not a string": { message: { role: "assistant", content: 42 }, usage },
  "tool_calls not an array": { message: { role: "assistant", content: null, tool_calls: "echo" }, usage },
  "tool call without id": { message: { role: "assistant", content: null, tool_calls: [{ type: "function", function: { name: "echo", arguments: "{}" } }] }, usage },
  "tool call without name": { message: { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { arguments: "{}" } }] }, usage },
  "duplicate call ids": {
    message: {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "c1", type: "function", function: { name: "echo", arguments: "{}" } },
        { id: "c1", type: "function", function: { name: "echo", arguments: "{}" } },
      ],
    },
    usage,
  },
  "usage missing": { message: { role: "assistant", content: "hi" } },
  "usage not numbers": { message: { role: "assistant", content: "hi" }, usage: { promptTokens: "1", completionTokens: 1, totalTokens: 2 } },
};

describe("a custom Model's malformed answer", () => {
  it.each(Object.keys(MALFORMED_ANSWERS))("(%s) fails a run with AI1003, never its workflow task", async (kind) => {
    const prompt = uid(`malformed ${kind}`);
    customAnswers.set(prompt, () => MALFORMED_ANSWERS[kind]);
    const runId = uid("run");
    await expect(custom.agents.run(hostileAgent, { prompt, runId })).rejects.toMatchObject({ code: "AI1003" });
    expect(await workflowTaskFailures(custom.agents.client, runId)).toEqual([]);
  });

  it("fails a thread's turn with AI1003; the thread goes on with the next message", async () => {
    const prompt = uid("malformed in a thread");
    customAnswers.set(prompt, (request) => (request.messages.length > 2 ? answer("fine now") : { message: { role: "assistant", content: 7 }, usage }));
    const { threadId } = await custom.threads.createThread({ prompt });
    const failed = await custom.threads.waitUntilSettled({ threadId });
    expect(failed).toMatchObject({ status: "failed", lastError: { code: "AI1003" } });
    await custom.threads.sendMessage({ threadId, prompt: "try again" });
    expect((await custom.threads.waitUntilSettled({ threadId })).status).toBe("completed");
    expect(await workflowTaskFailures(custom.threads.client, threadId)).toEqual([]);
  });
});

describe("garbage sent around the clients", () => {
  it("is refused by a run's updates and queries with a typed code, and changes nothing", async () => {
    const prompt = uid("long-lived run");
    h.model.script(prompt, [{ toolCalls: [{ name: "misdefer", arguments: { mistake: "ttl" } }], delayMs: 0 }, { text: "done", delayMs: 3_000 }]);
    const runId = uid("run");
    await agents.start(hostileAgent, { prompt, runId });
    const handle = agents.client.workflow.getHandle(runId);
    expect(await refusalCode(() => handle.executeUpdate(cancelUpdate, { args: [null as never] }))).toBe("AI1012");
    expect(await refusalCode(() => handle.executeUpdate(cancelUpdate, { args: [{ reason: 5 } as never] }))).toBe("AI1012");
    expect(await refusalCode(() => handle.executeUpdate(resumeUpdate, { args: [null as never] }))).toBe("AI1012");
    expect(await refusalCode(() => handle.executeUpdate(replaceStepStateUpdate, { args: [null as never] }))).toBe("AI1012");
    expect(await refusalCode(() => handle.query(deferralQuery, 5 as never))).toBe("AI1012");
    expect(await refusalCode(() => handle.query(threadQuery, null as never))).toBe("AI1012");
    expect((await completed(agents.handle(runId).settled())).text).toBe("done");
    expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
  });

  it("is dropped by a thread's stream signal and refused by its updates and queries", async () => {
    const prompt = uid("long-lived thread");
    h.model.script(prompt, [{ text: "hello" }, { text: "still here" }]);
    const { threadId } = await rig.threads.createThread({ prompt });
    await rig.threads.waitUntilSettled({ threadId });
    const handle = rig.threads.client.workflow.getHandle(threadId);
    await handle.signal(threadWire.threadStreamSignal, null as never);
    await handle.signal(threadWire.threadStreamSignal, { streamId: "x", attempt: 1, parts: [null] } as never);
    expect(await refusalCode(() => handle.executeUpdate(threadWire.threadSendUpdate, { args: [null as never] }))).toBe("AI1012");
    expect(await refusalCode(() => handle.executeUpdate(threadWire.threadResumeUpdate, { args: [null as never] }))).toBe("AI1012");
    expect(await refusalCode(() => handle.executeUpdate(threadWire.threadToolResultUpdate, { args: [null as never] }))).toBe("AI1012");
    expect(await refusalCode(() => handle.query(threadWire.threadMessagesQuery, null as never))).toBe("AI1012");
    expect(await refusalCode(() => handle.query(threadWire.threadStreamQuery, null as never))).toBe("AI1012");
    expect(await refusalCode(() => handle.query(threadWire.threadTranscriptQuery, { length: "all" } as never))).toBe("AI1012");
    await rig.threads.sendMessage({ threadId, prompt: "are you there?" });
    expect((await rig.threads.waitUntilSettled({ threadId })).status).toBe("completed");
    expect(await workflowTaskFailures(rig.threads.client, threadId)).toEqual([]);
  });
});
