import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ResumeTokenError, ThreadUnauthorizedError, type Principal, type ThreadsClient } from "../src/index.js";
import { startHarness, uid, type Harness } from "./harness.js";
import { answerTokenOf, seen, threadRig, type ThreadRig } from "./thread-support.js";

let h: Harness;
let rig: ThreadRig;
/** Who owns which thread, and who manages its owner: what the authorize hook consults. */
const owners = new Map<string, string>();
const managers = new Map<string, string>();

beforeAll(async () => {
  h = await startHarness();
  rig = await threadRig(h, undefined, {
    authorize: (principal, threadId) => {
      if (principal?.id === "broken") throw new Error("directory is down");
      return owners.get(threadId) === principal?.id || (principal !== undefined && managers.get(threadId) === principal.id);
    },
  });
});
afterAll(() => h?.close());

const alice: Principal = { id: "alice" };
const mallory: Principal = { id: "mallory" };
const bob: Principal = { id: "bob" };

/** Every endpoint that touches a thread, called as `principal`. */
function endpoints(threads: ThreadsClient, threadId: string, toolCallId: string, answerToken: string, principal: Principal | undefined) {
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
    // Even with the call's answer token: authorize still decides who reaches the thread.
    addToolResult: () => threads.addToolResult({ threadId, toolCallId, result: "yes", answerToken, ...p }),
    addToolError: () => threads.addToolError({ threadId, toolCallId, error: "no", answerToken, ...p }),
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
    const answerToken = answerTokenOf(threadId, toolCallId);
    const before = await rig.threads.listMessages({ threadId, principal: alice });
    const stateBefore = await rig.threads.getThread({ threadId, principal: alice });

    for (const principal of [mallory, { id: "broken" }, undefined]) {
      for (const [name, call] of Object.entries(endpoints(rig.threads, threadId, toolCallId, answerToken, principal))) {
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

    // The owner gets through; with the call's answer token, so does her answer (the next test is about who holds it).
    expect(await rig.threads.addToolResult({ threadId, toolCallId, result: "yes", answerToken, principal: alice })).toMatchObject({ status: "accepted" });
    expect((await rig.threads.waitUntilSettled({ threadId, principal: alice })).status).toBe("completed");
  });

  it("lets only the holder of the call's answer token answer an async tool: the owner is refused RC5041, the manager with the token gets through", async () => {
    const prompt = uid("alice asks bob");
    h.model.script(prompt, [{ toolCalls: [{ name: "askHuman", arguments: { question: "may alice spend 5k?" } }] }, { text: "bob said yes" }]);
    const { threadId } = await rig.threads.createThread({ prompt, principal: alice });
    owners.set(threadId, "alice");
    managers.set(threadId, "bob");
    await vi.waitFor(async () => expect((await rig.threads.getThread({ threadId, principal: alice })).toolCalls).toMatchObject([{ state: "waiting" }]), {
      timeout: 20_000,
      interval: 50,
    });
    const toolCallId = seen.find((s) => s.threadId === threadId && s.tool === "askHuman")!.toolCallId;
    const before = await rig.threads.listMessages({ threadId, principal: alice });
    const stateBefore = await rig.threads.getThread({ threadId, principal: alice });

    // The owner passes authorize but was not asked: without the token (the link went to bob) she is refused.
    for (const answer of [
      () => rig.threads.addToolResult({ threadId, toolCallId, result: "approved by me", answerToken: undefined, principal: alice }),
      () => rig.threads.addToolError({ threadId, toolCallId, error: "never mind", answerToken: undefined, principal: alice }),
    ]) {
      const err = await answer().catch((e: unknown) => e);
      expect(ResumeTokenError.isInstance(err), String(err)).toBe(true);
      expect((err as ResumeTokenError).fields).toMatchObject({ token: "answer", reason: "no proof of the token was sent" });
    }
    expect(await rig.threads.listMessages({ threadId, principal: alice })).toEqual(before);
    expect(await rig.threads.getThread({ threadId, principal: alice })).toEqual(stateBefore);

    // Bob, holding the link's token, answers.
    const answerToken = answerTokenOf(threadId, toolCallId);
    expect(await rig.threads.addToolResult({ threadId, toolCallId, result: "yes", answerToken, principal: bob })).toEqual({ status: "accepted", toolCallId });
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
