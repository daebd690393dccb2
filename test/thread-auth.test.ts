import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ThreadUnauthorizedError, type Principal, type ThreadsClient } from "../src/index.js";
import { startHarness, uid, type Harness } from "./harness.js";
import { seen, threadRig, type ThreadRig } from "./thread-support.js";

let h: Harness;
let rig: ThreadRig;
/** Who owns which thread: what the authorize hook consults. */
const owners = new Map<string, string>();

beforeAll(async () => {
  h = await startHarness();
  rig = await threadRig(h, undefined, {
    authorize: (principal, threadId) => {
      if (principal?.id === "broken") throw new Error("directory is down");
      return owners.get(threadId) === principal?.id;
    },
  });
});
afterAll(() => h?.close());

const alice: Principal = { id: "alice" };
const mallory: Principal = { id: "mallory" };

/** Every endpoint that touches a thread, called as `principal`. */
function endpoints(threads: ThreadsClient, threadId: string, toolCallId: string, principal: Principal | undefined) {
  const p = principal ? { principal } : {};
  return {
    sendMessage: () => threads.sendMessage({ threadId, prompt: "hi", ...p }),
    addMessage: () => threads.addMessage({ threadId, message: { role: "user", content: "note" }, ...p }),
    resumeThread: () => threads.resumeThread({ threadId, prompt: "go on", ...p }),
    stopThread: () => threads.stopThread({ threadId, ...p }),
    getThread: () => threads.getThread({ threadId, ...p }),
    listMessages: () => threads.listMessages({ threadId, ...p }),
    streamUpdates: () => threads.streamUpdates({ threadId, ...p }),
    followUpdates: () => threads.followUpdates({ threadId, ...p }).next(),
    waitUntilSettled: () => threads.waitUntilSettled({ threadId, ...p }),
    addToolResult: () => threads.addToolResult({ threadId, toolCallId, result: "yes", ...p }),
    addToolError: () => threads.addToolError({ threadId, toolCallId, error: "no", ...p }),
    deleteThread: () => threads.deleteThread({ threadId, ...p }),
  };
}

describe("thread authorization", () => {
  it("refuses every endpoint with AI1021 unless authorize returns exactly true, and nothing changes", async () => {
    const prompt = uid("alice asks");
    h.model.script(prompt, [{ toolCalls: [{ name: "askHuman", arguments: { question: "ok?" } }] }, { text: "thanks" }]);
    const { threadId } = await rig.threads.createThread({ prompt, principal: alice });
    owners.set(threadId, "alice");
    await vi.waitFor(async () => expect((await rig.threads.getThread({ threadId, principal: alice })).toolCalls).toMatchObject([{ state: "waiting" }]), {
      timeout: 20_000,
      interval: 50,
    });
    const toolCallId = seen.find((s) => s.threadId === threadId && s.tool === "askHuman")!.toolCallId;
    const before = await rig.threads.listMessages({ threadId, principal: alice });
    const stateBefore = await rig.threads.getThread({ threadId, principal: alice });

    for (const principal of [mallory, { id: "broken" }, undefined]) {
      for (const [name, call] of Object.entries(endpoints(rig.threads, threadId, toolCallId, principal))) {
        const err = await call().then(
          () => new Error(`${name} was allowed for ${principal?.id}`),
          (e: unknown) => e,
        );
        expect(ThreadUnauthorizedError.isInstance(err), `${name} as ${principal?.id}: ${String(err)}`).toBe(true);
        expect((err as ThreadUnauthorizedError).fields).toMatchObject({ threadId, operation: name === "followUpdates" ? "streamUpdates" : name === "waitUntilSettled" ? "getThread" : name });
      }
    }
    expect(await rig.threads.listMessages({ threadId, principal: alice })).toEqual(before);
    expect(await rig.threads.getThread({ threadId, principal: alice })).toEqual(stateBefore);

    // The owner gets through, result included.
    expect(await rig.threads.addToolResult({ threadId, toolCallId, result: "yes", principal: alice })).toMatchObject({ status: "accepted" });
    expect((await rig.threads.waitUntilSettled({ threadId, principal: alice })).status).toBe("completed");
  });

  it("lists only the threads authorize allows", async () => {
    const mine = await rig.threads.createThread({ principal: alice });
    const theirs = await rig.threads.createThread({ principal: mallory });
    owners.set(mine.threadId, "alice");
    owners.set(theirs.threadId, "mallory");
    const listed = async (principal: Principal) => (await rig.threads.listThreads({ principal, limit: 100 })).threads.map((t) => t.threadId);
    await vi.waitFor(async () => expect(await listed(alice)).toContain(mine.threadId), { timeout: 10_000 });
    expect(await listed(alice)).not.toContain(theirs.threadId);
    expect(await listed(mallory)).toContain(theirs.threadId);
    expect(await listed(mallory)).not.toContain(mine.threadId);
  });
});
