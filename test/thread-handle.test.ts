import { Client, Connection } from "@temporalio/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ThreadNotFoundError, ThreadUnauthorizedError, ThreadsClient, type Principal } from "../src/index.js";
import { startHarness, uid, type Harness } from "./harness.js";
import { answerTokenOf, seen, threadRig, type ThreadRig } from "./thread-support.js";

let h: Harness;
let rig: ThreadRig;
/** Who owns which thread: what the authorize hook consults. */
const owners = new Map<string, string>();

beforeAll(async () => {
  h = await startHarness();
  rig = await threadRig(h, undefined, { authorize: ({ principal, threadId }) => threadId !== undefined && owners.get(threadId) === principal?.id });
});
afterAll(() => h?.close());

const alice: Principal = { id: "alice" };
const mallory: Principal = { id: "mallory" };

/** A thread alice owns, created idle. */
async function alicesThread(): Promise<string> {
  const threadId = uid("handled");
  owners.set(threadId, "alice");
  await rig.threads.createThread({ threadId, principal: alice });
  return threadId;
}

/** The first call of `tool` the thread made. */
const callOf = (threadId: string, tool: string) => seen.find((s) => s.threadId === threadId && s.tool === tool);

describe("threads.handle(threadId, { principal })", () => {
  it("binds every thread operation to the thread and to the principal it was made for", async () => {
    const threadId = await alicesThread();
    const thread = rig.threads.handle(threadId, { principal: alice });
    expect(thread.threadId).toBe(threadId);

    // Messages, a turn through an async tool answered with an error and then a result, streaming and reading.
    // Written by this server code, not taken from a user: only then may a system message join.
    await thread.addMessage({ message: { role: "system", content: "Be brief." }, trustTranscript: true });
    const prompt = uid("ask twice");
    const slow = uid("slow job");
    // One script per conversation, keyed by its first user message: this turn, then the next one's.
    h.model.script(prompt, [
      { toolCalls: [{ name: "askHuman", arguments: { question: "first?" } }] },
      { toolCalls: [{ name: "askHuman", arguments: { question: "second?" } }] },
      { text: "both answered" },
      { toolCalls: [{ name: "slowTask", arguments: { job: "count" } }] },
      { text: "counted" },
    ]);
    expect(await thread.sendMessage({ prompt })).toMatchObject({ queued: false, duplicate: false });
    await vi.waitFor(() => expect(seen.filter((s) => s.threadId === threadId && s.tool === "askHuman")).toHaveLength(1), { timeout: 20_000, interval: 50 });
    const first = callOf(threadId, "askHuman")!.toolCallId;
    expect(await thread.addToolError({ toolCallId: first, error: "nobody home", answerToken: answerTokenOf(threadId, first) })).toEqual({ status: "accepted", toolCallId: first });
    await vi.waitFor(() => expect(seen.filter((s) => s.threadId === threadId && s.tool === "askHuman")).toHaveLength(2), { timeout: 20_000, interval: 50 });
    const second = seen.filter((s) => s.threadId === threadId && s.tool === "askHuman")[1]!.toolCallId;
    expect(await thread.addToolResult({ toolCallId: second, result: "yes", answerToken: answerTokenOf(threadId, second) })).toEqual({ status: "accepted", toolCallId: second });
    expect(await thread.settled()).toMatchObject({ threadId, status: "completed" });
    expect((await thread.state()).status).toBe("completed");

    const page = await thread.listMessages({ limit: 2, excludeSystemMessages: false });
    expect(page).toMatchObject({ cursor: "2", messages: [{ role: "system" }, { role: "user", content: prompt }] });
    expect((await thread.listMessages({ cursor: page.cursor! })).messages.at(-1)).toMatchObject({ role: "assistant", content: "both answered" });
    // A page the thread could not have returned is refused as a run's is (AI1001), before anything is read.
    for (const options of [{ cursor: "abc" }, { cursor: "-1" }, { limit: 0 }, { limit: 1001 }, { limit: 2.5 }]) {
      await expect(thread.listMessages(options), JSON.stringify(options)).rejects.toMatchObject({ code: "AI1001" });
    }
    const snapshot = await thread.streamUpdates();
    expect(snapshot.updates.at(-1)).toMatchObject({ type: "status", status: "completed" });
    const followed = await thread.followUpdates().next();
    expect(followed.value?.lastSeq).toBe(snapshot.lastSeq);

    // A stop cuts the running tool; a resume continues from it.
    await thread.sendMessage({ prompt: slow });
    await vi.waitFor(async () => expect((await thread.state()).toolCalls).toMatchObject([{ name: "slowTask", state: "running" }]), { timeout: 20_000, interval: 50 });
    expect(await thread.stopThread()).toMatchObject({ status: "stopped", previousStatus: "awaiting_tool_results" });
    expect((await thread.settled()).status).toBe("stopped");
    expect(await thread.resumeThread()).toMatchObject({ previousStatus: "stopped" });
    expect(await thread.settled()).toMatchObject({ status: "completed" });
    expect((await thread.listMessages()).messages.at(-1)).toMatchObject({ content: "counted" });

    expect(await thread.deleteThread()).toEqual({ deleted: true });
    expect(ThreadNotFoundError.isInstance(await thread.state().catch((e: unknown) => e))).toBe(true);
  });

  it("asks authorize about its principal on every call, as the client's methods do", async () => {
    const threadId = await alicesThread();
    const intruder = rig.threads.handle(threadId, { principal: mallory });
    const anonymous = rig.threads.handle(threadId);
    for (const thread of [intruder, anonymous]) {
      for (const call of [() => thread.state(), () => thread.sendMessage({ prompt: "hi" }), () => thread.deleteThread(), () => thread.followUpdates().next()]) {
        expect(ThreadUnauthorizedError.isInstance(await call().catch((e: unknown) => e))).toBe(true);
      }
    }
    // The owner's handle still finds the thread untouched; a handle needs an id.
    expect(await rig.threads.handle(threadId, { principal: alice }).state()).toMatchObject({ status: "idle", messageCount: 0 });
    expect(() => rig.threads.handle("")).toThrow(/threadId/);
  });
});

describe("deleteThread", () => {
  it("throws what the server refuses, leaves the thread ended, and a second call deletes it", async () => {
    const threadId = await alicesThread();
    // A client whose deletes the server refuses, as a namespace role without delete rights would.
    const connection = await Connection.connect({ address: h.address });
    try {
      const client = new Client({ connection, namespace: h.namespace });
      const refused = Object.assign(new Error("7 PERMISSION_DENIED: Request unauthorized."), { code: 7, details: "Request unauthorized.", metadata: {} });
      const service = client.workflowService as unknown as { deleteWorkflowExecution: (request: { workflowExecution?: { workflowId?: string } }) => Promise<unknown> };
      const serverDelete = service.deleteWorkflowExecution.bind(service);
      service.deleteWorkflowExecution = () => Promise.reject(refused);
      const threads = new ThreadsClient({ client, taskQueue: rig.taskQueue, authorize: ({ principal, threadId }) => threadId !== undefined && owners.get(threadId) === principal?.id });

      await expect(threads.deleteThread({ threadId, principal: alice })).rejects.toBe(refused);
      // Ended: it takes no more messages, but its history is still there to delete.
      expect(ThreadNotFoundError.isInstance(await threads.state({ threadId, principal: alice }).catch((e: unknown) => e))).toBe(true);
      expect((await client.workflow.getHandle(threadId).describe()).status.name).toBe("COMPLETED");

      // Allowed again: the next call has the server delete the history (which it does in the background).
      const accepted: string[] = [];
      service.deleteWorkflowExecution = async (request) => {
        const response = await serverDelete(request);
        accepted.push(request.workflowExecution?.workflowId ?? "");
        return response;
      };
      expect(await threads.deleteThread({ threadId, principal: alice })).toEqual({ deleted: true });
      expect(accepted).toEqual([threadId]);
    } finally {
      await connection.close();
    }
  });

  it("answers deleted to racing deletes (or AI1020 to one that finds it gone), and AI1020 for a thread that never existed", async () => {
    const threadId = await alicesThread();
    const thread = rig.threads.handle(threadId, { principal: alice });
    const outcomes = await Promise.allSettled([thread.deleteThread(), thread.deleteThread(), thread.deleteThread()]);
    expect(outcomes.filter((o) => o.status === "fulfilled")).not.toHaveLength(0);
    for (const o of outcomes) {
      if (o.status === "fulfilled") expect(o.value).toEqual({ deleted: true });
      else expect(ThreadNotFoundError.isInstance(o.reason), String(o.reason)).toBe(true);
    }

    const never = uid("never-created");
    owners.set(never, "alice");
    expect(ThreadNotFoundError.isInstance(await rig.threads.deleteThread({ threadId: never, principal: alice }).catch((e: unknown) => e))).toBe(true);
  });
});
