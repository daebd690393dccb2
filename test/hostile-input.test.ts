/**
 * No input wedges a run or a thread: hostile tool names, defer misuse, malformed model
 * answers and garbage updates, signals and queries each end in a typed refusal or a tool
 * error the model reads, never in a failed workflow task (which Temporal retries forever).
 */
import { WorkflowUpdateFailedError } from "@temporalio/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import fc from "fast-check";
import { z } from "zod";
import { AgentClient } from "../src/client/agent-client.js";
import { startAgentRun } from "../src/client/start-run.js";
import { defineAgent } from "../src/core/define-agent.js";
import { defineTool } from "../src/core/define-tool.js";
import { completed, SECRET, startHarness, uid, workflowTaskFailures, type Harness } from "./harness.js";
import { threadRig, type ThreadRig } from "./thread-support.js";
import type { Model, ModelRequest } from "../src/core/model.js";
import { createAgentWorker } from "../src/worker/create-agent-worker.js";
import { ThreadsClient } from "../src/client/threads/threads-client.js";
import { cancelUpdate, deferralQuery, replaceStepStateUpdate, resumeUpdate, transcriptQuery } from "../src/core/wire/run.js";
import * as threadWire from "../src/core/wire/thread.js";
import { cancelRequestProblem, threadResumeRequestProblem } from "../src/core/request-shapes.js";

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

/** Defers properly: a run it parks stays open for the garbage properties. */
const approve = defineTool({
  name: "approve",
  description: "Asks a human",
  input: z.object({}),
  handler: (_input, ctx) => ctx.defer({ schema: z.object({ ok: z.boolean() }), ttl: "1h" }),
});

const hostileAgent = defineAgent({
  id: "hostile",
  model: "gpt-4.1-mini",
  system: "You are tested with hostile input.",
  tools: [echo, elsewhere, misdefer, approve],
  maxTurns: 6,
});

/** Names every plain object answers to through its prototype. */
const INHERITED_NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"];

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
  // One model attempt: a malformed answer reports AI1003 at once instead of after minutes of backoff.
  ({ agents, taskQueue } = await h.worker([hostileAgent], { deferral: { secret: SECRET }, threads: { modelMaxAttempts: 1 } }));
  rig = await threadRig(h, [hostileAgent], { overrides: { threads: { modelMaxAttempts: 1 } } });
});
afterAll(() => h?.close());

describe("tool names the model chooses", () => {
  it("are looked up as own properties only in a run", async () => {
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
    await startAgentRun(agents.client, taskQueue, runId, { agentId: hostileAgent.id, prompt });
    const result = await completed(agents.handle(runId).settled());
    expect(result.text).toBe("none of those exist");
    expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
    h.model.assertNoFailures();
  });

  it("are looked up as own properties only in a thread", async () => {
    const prompt = uid("inherited names in a thread");
    h.model.script(prompt, [{ toolCalls: INHERITED_NAMES.map((name) => ({ name, arguments: {} })) }, { text: "none of those exist" }]);
    const { threadId } = await rig.threads.createThread({ prompt });
    const done = await rig.threads.settled({ threadId });
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
    const failed = await custom.threads.settled({ threadId });
    expect(failed).toMatchObject({ status: "failed", lastError: { code: "AI1003" } });
    await custom.threads.sendMessage({ threadId, prompt: "try again" });
    expect((await custom.threads.settled({ threadId })).status).toBe("completed");
    expect(await workflowTaskFailures(custom.threads.client, threadId)).toEqual([]);
  });
});

describe("garbage sent around the clients", () => {
  it("is refused by a run's updates and queries with a typed code, and changes nothing", async () => {
    const prompt = uid("long-lived run");
    // The run waits at its second model call until every refusal is in.
    const hold = h.model.hold();
    h.model.script(prompt, [{ toolCalls: [{ name: "misdefer", arguments: { mistake: "ttl" } }] }, { text: "done", hold }]);
    const runId = uid("run");
    await agents.start(hostileAgent, { prompt, runId });
    const handle = agents.client.workflow.getHandle(runId);
    expect(await refusalCode(() => handle.executeUpdate(cancelUpdate, { args: [null as never] }))).toBe("AI1012");
    expect(await refusalCode(() => handle.executeUpdate(cancelUpdate, { args: [{ reason: 5 } as never] }))).toBe("AI1012");
    expect(await refusalCode(() => handle.executeUpdate(resumeUpdate, { args: [null as never] }))).toBe("AI1012");
    expect(await refusalCode(() => handle.executeUpdate(replaceStepStateUpdate, { args: [null as never] }))).toBe("AI1012");
    expect(await refusalCode(() => handle.query(deferralQuery, 5 as never))).toBe("AI1012");
    expect(await refusalCode(() => handle.query(transcriptQuery, null as never))).toBe("AI1012");
    hold.release();
    expect((await completed(agents.handle(runId).settled())).text).toBe("done");
    expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
  });

  it("is dropped by a thread's stream signal and refused by its updates and queries", async () => {
    const prompt = uid("long-lived thread");
    h.model.script(prompt, [{ text: "hello" }, { text: "still here" }]);
    const { threadId } = await rig.threads.createThread({ prompt });
    await rig.threads.settled({ threadId });
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
    expect((await rig.threads.settled({ threadId })).status).toBe("completed");
    expect(await workflowTaskFailures(rig.threads.client, threadId)).toEqual([]);
  });
});

describe("a start input of a version this release does not know", () => {
  const versions = [2, 0, "1", undefined];

  it("fails a run at its first task with AI1012, before it calls anything", async () => {
    for (const version of versions) {
      const runId = uid("run of another version");
      // As a client of another release would start it: only the version differs.
      await agents.client.workflow.start("agentRun", { workflowId: runId, taskQueue, args: [{ agentId: hostileAgent.id, prompt: runId, ...(version !== undefined ? { version } : {}) }] });
      await expect(agents.result({ runId })).rejects.toMatchObject({ code: "AI1012", message: expect.stringContaining(`version ${JSON.stringify(version) ?? "(none)"}`) });
      const { events } = await agents.client.workflow.getHandle(runId).fetchHistory();
      expect((events ?? []).filter((e) => e.activityTaskScheduledEventAttributes || e.markerRecordedEventAttributes)).toEqual([]);
      expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
    }
  });

  it("fails a thread at its first task with AI1012, before it calls anything", async () => {
    for (const version of versions) {
      const threadId = uid("thread of another version");
      const handle = await rig.threads.client.workflow.start("agentThread", {
        workflowId: threadId,
        taskQueue: rig.taskQueue,
        args: [{ agentId: hostileAgent.id, prompt: { id: "m1", content: threadId }, ...(version !== undefined ? { version } : {}) }],
      });
      await expect(handle.result()).rejects.toMatchObject({ cause: { type: "AI1012", message: expect.stringContaining(`version ${JSON.stringify(version) ?? "(none)"}`) } });
      const { events } = await handle.fetchHistory();
      expect((events ?? []).filter((e) => e.activityTaskScheduledEventAttributes || e.markerRecordedEventAttributes)).toEqual([]);
      expect(await workflowTaskFailures(rig.threads.client, threadId)).toEqual([]);
    }
  });
});

// ----- properties ------------------------------------------------------------------------
// Each case is cheap: one worker per kind, unique conversations, and long-lived runs and
// threads for the garbage properties. numRuns keeps the file within about two minutes.

const TYPED = /^(AI|RC)\d{4}$/;

/** Names a model may call: inherited ones, empty, huge, unicode, and real tools (never one that parks or needs another queue). */
const toolName = fc.oneof(
  fc.constantFrom(...INHERITED_NAMES, "", "echo", "misdefer", "__defineGetter__", "isPrototypeOf"),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.nat({ max: 20_000 }).map((n) => "x".repeat(n)),
);

/** Arguments as the model writes them: any text, any JSON, deep nesting, prototype keys. */
const toolArguments = fc.oneof(
  fc.string({ unit: "binary", maxLength: 60 }),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.constantFrom('{"__proto__":{"text":"x"}}', '{"constructor":{"prototype":{}}}', '{"text":"ok"}', '{"mistake":"ttl"}', '{"mistake":"date"}'),
  fc.nat({ max: 5_000 }).map((n) => "[".repeat(n) + "]".repeat(n)),
);

/** Ids: mostly the server's own, sometimes hostile (empty ids and repeats make the answer malformed). */
const toolCallId = fc.option(fc.constantFrom("__proto__", "constructor", "", "same"), { freq: 3 });

const batch = fc.array(fc.record({ name: toolName, arguments: toolArguments, id: toolCallId }), { maxLength: 6 });

const malformedBatch = (calls: Array<{ id: string | null }>) => {
  const ids = calls.flatMap((c) => (c.id === null ? [] : [c.id]));
  return ids.includes("") || new Set(ids).size !== ids.length;
};

const scripted = (calls: Array<{ name: string; arguments: string; id: string | null }>) =>
  calls.map((c) => ({ name: c.name, arguments: c.arguments, ...(c.id !== null ? { id: c.id } : {}) }));

describe("properties: no input fails a workflow task", () => {
  it("a run survives any batch of tool calls the model sends", async () => {
    await fc.assert(
      fc.asyncProperty(batch, async (calls) => {
        const prompt = uid("prop run");
        h.model.script(prompt, [{ toolCalls: scripted(calls) }, { text: "done" }]);
        const runId = uid("prop");
        const outcome = await agents.run(hostileAgent, { prompt, runId }).then(
          (r) => (r.status === "completed" ? r.text : r.status),
          (err: { code?: string }) => err.code ?? "untyped",
        );
        if (malformedBatch(calls)) expect(outcome).toBe("AI1003");
        else expect(outcome).toBe(calls.length === 0 ? "" : "done");
        expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });

  it("a thread survives any batch of tool calls the model sends", async () => {
    await fc.assert(
      fc.asyncProperty(batch, async (calls) => {
        const prompt = uid("prop thread");
        h.model.script(prompt, [{ toolCalls: scripted(calls) }, { text: "done" }]);
        const { threadId } = await rig.threads.createThread({ prompt });
        const settled = await rig.threads.settled({ threadId });
        if (settled.status === "failed") expect(settled.lastError?.code).toMatch(TYPED);
        else expect(settled.status).toBe("completed");
        // Empty and repeated ids are refused; ctx.defer() in a thread fails the turn (AI1023).
        if (malformedBatch(calls)) expect(settled.lastError?.code).toBe("AI1003");
        expect(await workflowTaskFailures(rig.threads.client, threadId)).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  const toolCallShape = fc.record(
    {
      id: fc.oneof(fc.string({ maxLength: 8 }), fc.anything()),
      type: fc.oneof(fc.constant("function"), fc.anything()),
      function: fc.oneof(fc.record({ name: fc.oneof(toolName, fc.anything()), arguments: fc.oneof(toolArguments, fc.anything()) }, { requiredKeys: [] }), fc.anything()),
    },
    { requiredKeys: [] },
  );
  const usageShape = fc.oneof(
    fc.constant(usage),
    fc.record({ promptTokens: fc.anything(), completionTokens: fc.anything(), totalTokens: fc.anything() }, { requiredKeys: [] }),
    fc.anything(),
  );
  const modelAnswer = fc.oneof(
    fc.anything(),
    fc.record(
      {
        message: fc.oneof(
          fc.record(
            {
              role: fc.oneof(fc.constant("assistant"), fc.anything()),
              content: fc.oneof(fc.string(), fc.constant(null), fc.anything()),
              tool_calls: fc.oneof(fc.array(toolCallShape, { maxLength: 4 }), fc.anything()),
            },
            { requiredKeys: ["role"] },
          ),
          fc.anything(),
        ),
        usage: usageShape,
      },
      { requiredKeys: [] },
    ),
  );

  it("a run survives anything a custom Model returns", async () => {
    await fc.assert(
      fc.asyncProperty(modelAnswer, async (first) => {
        const prompt = uid("prop model");
        customAnswers.set(prompt, (request) => (request.messages.length > 2 ? answer("done") : first));
        const runId = uid("prop");
        const outcome = await custom.agents.run(hostileAgent, { prompt, runId }).then(
          (r) => r.status,
          (err: { code?: string }) => err.code ?? "untyped",
        );
        expect(outcome).toMatch(/^(completed|deferred|AI\d{4}|RC\d{4})$/);
        expect(await workflowTaskFailures(custom.agents.client, runId)).toEqual([]);
        customAnswers.delete(prompt);
      }),
      { numRuns: 120 },
    );
  });

  it("a parked run refuses garbage updates and queries with typed codes", async () => {
    const prompt = uid("parked run");
    h.model.script(prompt, [{ toolCalls: [{ name: "approve", arguments: {} }] }, { text: "approved" }]);
    const runId = uid("parked");
    const ack = await agents.run(hostileAgent, { prompt, runId });
    if (ack.status !== "deferred") throw new Error(`expected a deferral, got ${JSON.stringify(ack)}`);
    const handle = agents.client.workflow.getHandle(runId);
    const near = <T>(arb: fc.Arbitrary<T>) => fc.oneof(arb, fc.anything());
    const request = fc.oneof(
      fc.constant(["cancel", null] as const),
      // Anything a cancel could accept would end the run the other properties use.
      fc.anything().filter((a) => cancelRequestProblem(a) !== undefined).map((a) => ["cancel", a] as const),
      fc.anything().map((a) => ["resume", a] as const),
      fc
        .record({ deferralId: near(fc.constant(ack.deferralId)), toolCallId: fc.anything(), payload: fc.anything(), resumedBy: fc.anything(), reverify: fc.anything() }, { requiredKeys: [] })
        .map((a) => ["resume", a] as const),
      fc.anything().map((a) => ["replace", a] as const),
      fc
        .record({ deferralId: near(fc.constant(ack.deferralId)), expectedFingerprint: fc.anything(), stepState: fc.oneof(fc.record({ messages: fc.anything(), agentId: fc.anything() }), fc.anything()) }, { requiredKeys: [] })
        .map((a) => ["replace", a] as const),
      fc.anything().map((a) => ["deferral?", a] as const),
      fc.anything().map((a) => ["thread?", a] as const),
    );
    await fc.assert(
      fc.asyncProperty(request, async ([kind, arg]) => {
        const code = await refusalCode(() => {
          switch (kind) {
            case "cancel":
              return handle.executeUpdate(cancelUpdate, { args: [arg as never] });
            case "resume":
              return handle.executeUpdate(resumeUpdate, { args: [arg as never] });
            case "replace":
              return handle.executeUpdate(replaceStepStateUpdate, { args: [arg as never] });
            case "deferral?":
              return handle.query(deferralQuery, arg as never);
            case "thread?":
              return handle.query(transcriptQuery, arg as never);
          }
        });
        // A string deferral id is a fair question (null when unknown); everything else is refused, typed.
        if (kind === "deferral?" && typeof arg === "string") expect(code).toBe("accepted");
        else expect(code).toMatch(TYPED);
      }),
      { numRuns: 300 },
    );
    expect((await agents.state({ runId })).status).toBe("deferred");
    expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
  });

  it("a streaming thread drops garbage signals and refuses garbage updates and queries with typed codes", async () => {
    const prompt = uid("garbage thread");
    // The first answer never comes (the stop ends its call), so every case meets a turn that is streaming.
    const hold = h.model.hold();
    h.model.respond(prompt, (request) => (request.messages.at(-1)?.content === "are you there?" ? { text: "still here" } : { text: "hello", hold }));
    const { threadId } = await rig.threads.createThread({ prompt });
    let streamId: string | undefined;
    await vi.waitFor(
      async () => {
        streamId = (await rig.threads.state({ threadId })).modelCall?.messageId;
        expect(streamId).toBeDefined();
      },
      { timeout: 20_000, interval: 50 },
    );
    const handle = rig.threads.client.workflow.getHandle(threadId);
    const delta = fc.oneof(
      fc.record({ kind: fc.constant("text"), text: fc.oneof(fc.string(), fc.anything()) }),
      fc.record({ kind: fc.constant("tool-input"), toolCallId: fc.anything(), argumentsDelta: fc.anything(), name: fc.anything() }, { requiredKeys: [] }),
      fc.anything(),
    );
    const request = fc.oneof(
      fc.anything().map((a) => ["signal", a] as const),
      fc
        .record(
          {
            streamId: fc.oneof(fc.constant(streamId!), fc.string(), fc.anything()),
            attempt: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.anything()),
            parts: fc.oneof(fc.array(delta, { maxLength: 4 }), fc.anything()),
          },
          { requiredKeys: [] },
        )
        .map((a) => ["signal", a] as const),
      fc.anything().map((a) => ["send", a] as const),
      fc
        .record({ id: fc.anything(), kind: fc.oneof(fc.constantFrom("message", "add"), fc.anything()), message: fc.anything() }, { requiredKeys: [] })
        .map((a) => ["send", a] as const),
      fc.anything().map((a) => ["resume", a] as const),
      fc.record({ prompt: fc.anything() }).map((a) => ["resume", a] as const),
      fc.anything().map((a) => ["toolResult", a] as const),
      fc.record({ toolCallId: fc.oneof(fc.string(), fc.anything()), result: fc.anything(), error: fc.anything() }, { requiredKeys: [] }).map((a) => ["toolResult", a] as const),
      fc.anything().map((a) => ["messages?", a] as const),
      fc.anything().map((a) => ["stream?", a] as const),
      fc.anything().map((a) => ["transcript?", a] as const),
    );
    let signals = 0;
    await fc.assert(
      fc.asyncProperty(request, async ([kind, arg]) => {
        if (kind === "signal") {
          signals += 1;
          await handle.signal(threadWire.threadStreamSignal, arg as never);
          return;
        }
        const code = await refusalCode(() => {
          switch (kind) {
            case "send":
              return handle.executeUpdate(threadWire.threadSendUpdate, { args: [arg as never] });
            case "resume":
              return handle.executeUpdate(threadWire.threadResumeUpdate, { args: [arg as never] });
            case "toolResult":
              return handle.executeUpdate(threadWire.threadToolResultUpdate, { args: [arg as never] });
            case "messages?":
              return handle.query(threadWire.threadMessagesQuery, arg as never);
            case "stream?":
              return handle.query(threadWire.threadStreamQuery, arg as never);
            case "transcript?":
              return handle.query(threadWire.threadTranscriptQuery, arg as never);
          }
        });
        // Queries with an object argument clamp what they do not understand, and a resume of a
        // running turn with no prompt is a no-op; everything else is refused, typed.
        if (kind.endsWith("?")) expect(code).toMatch(/^(accepted|AI1012)$/);
        else if (kind === "resume" && code === "accepted") expect(threadResumeRequestProblem(arg)).toBeUndefined();
        else expect(code).toMatch(TYPED);
      }),
      { numRuns: 300 },
    );
    expect(signals).toBeGreaterThan(0);
    // The thread still works, and nothing failed a workflow task (a signal that threw would stay in history).
    await rig.threads.stopThread({ threadId });
    await rig.threads.sendMessage({ threadId, prompt: "are you there?" });
    // "stopped" counts as settled too: wait for the message's own turn to answer.
    await vi.waitFor(async () => expect(await rig.threads.state({ threadId })).toMatchObject({ status: "completed", messageCount: 3 }), {
      timeout: 20_000,
      interval: 100,
    });
    expect(await workflowTaskFailures(rig.threads.client, threadId)).toEqual([]);
  });
});
