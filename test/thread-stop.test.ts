/**
 * What a stop does to calls that do not stop: a thread waits for its calls to end, as a
 * run does, so a tool that finishes anyway keeps its result and is not run again.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool } from "../src/index.js";
import { startHarness, uid, type Harness } from "./harness.js";
import { threadRig, type ThreadRig } from "./thread-support.js";

const runs: string[] = [];
const finish = new Map<string, () => void>();

/** Ignores its AbortSignal: it ends when the test says so. */
const stubborn = defineTool({
  name: "stubborn",
  description: "Finishes what it started",
  input: z.object({}),
  async handler(_input, ctx) {
    runs.push(ctx.threadId!);
    await new Promise<void>((resolve) => finish.set(ctx.threadId!, resolve));
    return "finished anyway";
  },
});

const agent = defineAgent({ id: "stubborn-chat", model: "gpt-4.1-mini", system: "You use tools.", tools: [stubborn], maxTurns: 4 });

let h: Harness;
let rig: ThreadRig;

beforeAll(async () => {
  h = await startHarness();
  rig = await threadRig(h, [agent]);
});
afterAll(() => h?.close());

describe("stopping a thread", () => {
  it("keeps the result of a tool that finished anyway, and resume does not run it again", async () => {
    const prompt = uid("stubborn");
    h.model.script(prompt, [
      { toolCalls: [{ name: "stubborn", arguments: {} }] },
      { check: (req) => expect(req.messages.at(-1)).toMatchObject({ role: "tool", content: "finished anyway" }), text: "done" },
    ]);
    const { threadId } = await rig.threads.createThread({ prompt });
    await vi.waitFor(() => expect(finish.has(threadId)).toBe(true), { timeout: 20_000, interval: 20 });
    await rig.threads.stopThread({ threadId });
    expect((await rig.threads.state({ threadId })).status).toBe("stopped");

    finish.get(threadId)!();
    await vi.waitFor(async () => expect((await rig.threads.state({ threadId })).toolCalls).toEqual([]), { timeout: 20_000, interval: 50 });
    expect((await rig.threads.state({ threadId })).status).toBe("stopped");

    await rig.threads.resumeThread({ threadId });
    expect(await rig.threads.settled({ threadId })).toMatchObject({ status: "completed" });
    expect(runs.filter((t) => t === threadId)).toHaveLength(1);
    h.model.assertNoFailures();
  });
});
