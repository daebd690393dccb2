/**
 * No input wedges a run or a thread: hostile tool names, defer misuse, malformed model
 * answers and garbage updates, signals and queries each end in a typed refusal or a tool
 * error the model reads, never in a failed workflow task (which Temporal retries forever).
 */
import type { Client } from "@temporalio/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentClient } from "../src/client/agent-client.js";
import { startAgentRun } from "../src/client/start-run.js";
import { defineAgent } from "../src/core/define-agent.js";
import { defineTool } from "../src/core/define-tool.js";
import { completed, SECRET, startHarness, uid, type Harness } from "./harness.js";
import { threadRig, type ThreadRig } from "./thread-support.js";

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

beforeAll(async () => {
  h = await startHarness();
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
