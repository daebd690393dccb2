/**
 * Approvals in chat threads: a gated tool puts the turn on hold for a person's decision
 * (no handler runs before it), shown by `threads.state` and the stream, decided with
 * `threads.decide` (its own authorize operation), the inbox or the request's token, and the
 * turn goes on exactly there. A request outlives a stopped turn; a thread that moves on or is
 * deleted withdraws it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { Client, type WorkflowClientInterceptor } from "@temporalio/client";
import { AgentClient, defineAgent, defineTool, emptyFold, foldStreamUpdates, MAX_APPROVAL_BYTES, ThreadsClient, type ApprovalRequestInfo, type AuthorizeRequest, type StreamUpdate } from "../src/index.js";
import { SECRET, startHarness, uid, workflowTaskFailures, type Harness } from "./harness.js";

let h: Harness;
let agents: AgentClient;
let threads: ThreadsClient;
let taskQueue: string;

const deleted: Array<{ threadId: string; path: string; by?: string }> = [];
const notified: ApprovalRequestInfo[] = [];

const deleteFile = defineTool({
  name: "deleteFile",
  description: "Delete a file",
  input: z.object({ path: z.string().min(1) }),
  needsApproval: true,
  approval: { meta: { requires: ["files:delete"] }, notify: (request) => void notified.push(request) },
  handler: ({ path }, ctx) => {
    deleted.push({ threadId: ctx.threadId!, path, ...(ctx.resumedBy ? { by: ctx.resumedBy.id } : {}) });
    return `deleted ${path}`;
  },
});

const listFiles = defineTool({ name: "listFiles", description: "List files", input: z.object({}), handler: () => "a.txt b.txt" });

const filesAgent = defineAgent({ id: "files", model: "gpt-4.1-mini", system: "You manage files.", tools: [listFiles, deleteFile], maxTurns: 6 });

const deletedIn = (threadId: string) => deleted.filter((d) => d.threadId === threadId).map((d) => d.path);
const waitingFor = (threadId: string) =>
  vi.waitFor(
    async () => {
      const view = await threads.state({ threadId });
      expect(view.approvals).toHaveLength(1);
      return view;
    },
    { timeout: 20_000, interval: 50 },
  );

beforeAll(async () => {
  h = await startHarness();
  ({ agents, taskQueue } = await h.worker([filesAgent], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, threads: { agent: filesAgent } } }));
  threads = agents.threads;
});
afterAll(() => h?.close());

describe("a gated tool in a thread", () => {
  it("holds the turn before its handler, shows the request, and runs the call once when it is approved", async () => {
    const threadId = uid("t-approve");
    h.model.script(threadId, [
      { toolCalls: [{ name: "listFiles", arguments: {} }, { name: "deleteFile", arguments: { path: "a.txt" } }] },
      { check: (req) => expect(req.messages.at(-1)).toMatchObject({ role: "tool", content: "deleted a.txt" }), text: "a.txt is gone" },
    ]);
    await threads.createThread({ threadId, prompt: threadId, principal: { id: "sam" } });
    const view = await waitingFor(threadId);
    const [request] = view.approvals;
    expect(request).toMatchObject({ calls: [{ toolName: "deleteFile", arguments: JSON.stringify({ path: "a.txt" }) }] });
    expect(view.status).toBe("awaiting_tool_results");
    // The free call runs meanwhile; the gated one waits.
    expect(view.toolCalls).toContainEqual(expect.objectContaining({ name: "deleteFile", state: "awaiting_approval", approvalId: request!.approvalId }));
    expect(deletedIn(threadId)).toEqual([]);
    const stream = await threads.streamUpdates({ threadId });
    expect(stream.updates.filter((u) => u.type === "approval-request")).toEqual([expect.objectContaining({ approvalId: request!.approvalId, calls: request!.calls })]);
    await vi.waitFor(() => expect(notified.some((n) => n.threadId === threadId && n.approvalId === request!.approvalId)).toBe(true), { timeout: 20_000 });

    const toolCallId = request!.calls[0]!.toolCallId;
    expect(await threads.decide({ threadId, approvalId: request!.approvalId, decisions: { [toolCallId]: { approved: true } }, principal: { id: "sam" } })).toMatchObject({
      status: "resumed",
      outcome: { status: "accepted" },
    });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed", approvals: [] });
    expect(deletedIn(threadId)).toEqual(["a.txt"]);
    // The handler is told who approved it, as a run's is told who resumed it.
    expect(deleted.filter((d) => d.threadId === threadId)).toEqual([{ threadId, path: "a.txt", by: "sam" }]);
    const after = await threads.streamUpdates({ threadId });
    expect(after.updates.some((u: StreamUpdate) => u.type === "approval-decided" && u.approvalId === request!.approvalId && u.outcome === "resumed")).toBe(true);
    // Decided once: again reads the first outcome, and nothing runs twice.
    expect(await threads.decide({ threadId, approvalId: request!.approvalId, decisions: [{ toolCallId, approved: true }] })).toMatchObject({ status: "duplicate" });
    expect(deletedIn(threadId)).toEqual(["a.txt"]);
    expect(await workflowTaskFailures(threads.client, threadId)).toEqual([]);
  });

  it("never runs a rejected call, and runs an edited one with the approver's input", async () => {
    const threadId = uid("t-reject-edit");
    h.model.script(threadId, [
      { toolCalls: [{ name: "deleteFile", arguments: { path: "/" } }, { name: "deleteFile", arguments: { path: "tmp/x" } }] },
      {
        check: (req) => {
          expect(req.messages.filter((m) => m.role === "tool").map((m) => String(m.content))).toEqual([expect.stringMatching(/^Rejected by sam: "deleteFile" was not run\. Reason: never the root/), "deleted tmp/y"]);
          const answer = [...req.messages].reverse().find((m) => m.role === "assistant")!;
          expect(answer.tool_calls!.map((c) => JSON.parse(c.function.arguments).path)).toEqual(["/", "tmp/y"]);
        },
        text: "done what was allowed",
      },
    ]);
    await threads.createThread({ threadId, prompt: threadId });
    const [request] = (await waitingFor(threadId)).approvals;
    const [root, tmp] = request!.calls;
    await threads.decide({
      threadId,
      approvalId: request!.approvalId,
      decisions: [
        { toolCallId: root!.toolCallId, approved: false, reason: "never the root" },
        { toolCallId: tmp!.toolCallId, approved: true, input: { path: "tmp/y" } },
      ],
      principal: { id: "sam" },
    });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed" });
    expect(deletedIn(threadId)).toEqual(["tmp/y"]);
    h.model.assertNoFailures();
  });

  it("is decided through the request's token as its link is, once: the token's resume takes the decisions and the turn goes on", async () => {
    const threadId = uid("t-token");
    h.model.script(threadId, [{ toolCalls: [{ name: "deleteFile", arguments: { path: "b.txt" } }] }, { text: "b.txt is gone" }]);
    await threads.createThread({ threadId, prompt: threadId });
    const [request] = (await waitingFor(threadId)).approvals;
    // The notify hook got the token an email's link would carry.
    const sent = await vi.waitFor(
      () => {
        const found = notified.find((n) => n.threadId === threadId && n.approvalId === request!.approvalId);
        expect(found?.token).toMatch(/^v2\./);
        return found!;
      },
      { timeout: 20_000 },
    );
    const toolCallId = request!.calls[0]!.toolCallId;
    // Malformed decisions through the token change nothing and leave it usable.
    await expect(agents.resume({ token: sent.token, payload: { decisions: [{ toolCallId: "nope", approved: true }] } })).rejects.toMatchObject({ code: "RC5049" });
    expect(deletedIn(threadId)).toEqual([]);
    expect(await agents.resume({ token: sent.token, payload: { decisions: [{ toolCallId, approved: true }] } })).toMatchObject({ status: "resumed", outcome: { status: "accepted" } });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed", approvals: [] });
    expect(deletedIn(threadId)).toEqual(["b.txt"]);
    // The same link again reads the first outcome; nothing runs twice.
    expect(await agents.resume({ token: sent.token, payload: { decisions: [{ toolCallId, approved: true }] } })).toMatchObject({ status: "duplicate" });
    expect(deletedIn(threadId)).toEqual(["b.txt"]);
  });

  it("refuses decisions that do not fit with RC5049 and changes nothing", async () => {
    const threadId = uid("t-hostile");
    h.model.script(threadId, [{ toolCalls: [{ name: "deleteFile", arguments: { path: "a" } }] }, { text: "ok" }]);
    await threads.createThread({ threadId, prompt: threadId });
    const [request] = (await waitingFor(threadId)).approvals;
    const toolCallId = request!.calls[0]!.toolCallId;
    for (const decisions of [[], [{ toolCallId: "nope", approved: true }], [{ toolCallId, approved: true, input: { path: "" } }], [{ toolCallId, approved: 1 }], "all"] as unknown[]) {
      await expect(threads.decide({ threadId, approvalId: request!.approvalId, decisions: decisions as never }), JSON.stringify(decisions)).rejects.toMatchObject({ code: "RC5049" });
    }
    await expect(threads.decide({ threadId, approvalId: "dfr:9:elsewhere", decisions: [] })).rejects.toMatchObject({ code: "RC5046" });
    expect((await threads.state({ threadId })).approvals).toHaveLength(1);
    await threads.decide({ threadId, approvalId: request!.approvalId, decisions: [{ toolCallId, approved: true }] });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed" });
    expect(deletedIn(threadId)).toEqual(["a"]);
  });
});

describe("the size of a decision", () => {
  const lastAnswer = async (threadId: string) => (await threads.listMessages({ threadId, cursor: "0", limit: 1000 })).messages.filter((m) => m.role === "assistant").at(-1)?.content;

  it("refuses an edit larger than a request may be with AI1016 and changes nothing: the token stays usable and the thread answers its owner's next message", async () => {
    const threadId = uid("t-huge-edit");
    h.model.script(threadId, [{ toolCalls: [{ name: "deleteFile", arguments: { path: "g" } }] }, { text: "deleted g2" }, { text: "still here" }]);
    await threads.createThread({ threadId, prompt: threadId, principal: { id: "sam" } });
    const [request] = (await waitingFor(threadId)).approvals;
    const toolCallId = request!.calls[0]!.toolCallId;
    const huge = { path: "x".repeat(1_300_000) };
    const refused = await threads.decide({ threadId, approvalId: request!.approvalId, decisions: [{ toolCallId, approved: true, input: huge }], principal: { id: "sam" } }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "AI1016", fields: { limitBytes: MAX_APPROVAL_BYTES } });
    expect((refused as Error).message).toMatch(/edited input/);
    // Through the request's token (a link) alike.
    const token = notified.find((n) => n.approvalId === request!.approvalId)!.token;
    await expect(agents.resume({ token, payload: { decisions: [{ toolCallId, approved: true, input: huge }] } })).rejects.toMatchObject({ code: "AI1016" });
    const view = await threads.state({ threadId });
    expect(view.approvals).toEqual([request]);
    expect(view.status).toBe("awaiting_tool_results");
    expect(deletedIn(threadId)).toEqual([]);
    // The same request is decided with an edit that fits.
    await threads.decide({ threadId, approvalId: request!.approvalId, decisions: [{ toolCallId, approved: true, input: { path: "g2" } }], principal: { id: "sam" } });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed", approvals: [] });
    expect(deletedIn(threadId)).toEqual(["g2"]);
    await threads.sendMessage({ threadId, prompt: "are you there?" });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed" });
    expect(await lastAnswer(threadId)).toBe("still here");
    expect(await workflowTaskFailures(threads.client, threadId)).toEqual([]);
  });

  it("refuses an edit the thread's transcript has no room for with AI1018, and takes the decision without it", async () => {
    const threadId = uid("t-full-edit");
    // A long first message: the thread has about 245 KB left for the rest of the conversation.
    const prompt = `${threadId} ${"p".repeat(1_000_000)}`;
    h.model.script(prompt, [{ toolCalls: [{ name: "deleteFile", arguments: { path: "h" } }] }, { text: "deleted h" }]);
    await threads.createThread({ threadId, prompt });
    const [request] = (await waitingFor(threadId)).approvals;
    const toolCallId = request!.calls[0]!.toolCallId;
    const refused = await threads.decide({ threadId, approvalId: request!.approvalId, decisions: [{ toolCallId, approved: true, input: { path: "y".repeat(300_000) } }] }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "AI1018", fields: { host: "thread", id: threadId } });
    expect((await threads.state({ threadId })).approvals).toEqual([request]);
    expect(deletedIn(threadId)).toEqual([]);
    await threads.decide({ threadId, approvalId: request!.approvalId, decisions: [{ toolCallId, approved: true }] });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed" });
    expect(deletedIn(threadId)).toEqual(["h"]);
    expect(await workflowTaskFailures(threads.client, threadId)).toEqual([]);
  });
});

describe("who decides", () => {
  it("is the hook's call on thread.decide: the owner cannot approve what requires a manager", async () => {
    const threadId = uid("t-auth");
    h.model.script(threadId, [{ toolCalls: [{ name: "deleteFile", arguments: { path: "b" } }] }, { text: "ok" }]);
    const guarded = new AgentClient({
      connection: h.connection,
      namespace: h.namespace,
      taskQueue,
      deferral: { secret: SECRET },
      threads: { agent: filesAgent },
      authorize: (req) =>
        req.operation !== "thread.decide" || (Array.isArray(req.meta.requires) && req.meta.requires.every((r) => (req.principal?.roles as string[] | undefined)?.includes(String(r)))),
    }).threads;
    await guarded.createThread({ threadId, prompt: threadId, principal: { id: "sam" } });
    const [request] = (await waitingFor(threadId)).approvals;
    const decisions = [{ toolCallId: request!.calls[0]!.toolCallId, approved: true as const }];
    await expect(guarded.decide({ threadId, approvalId: request!.approvalId, decisions, principal: { id: "sam", roles: [] } })).rejects.toMatchObject({ code: "AI1021" });
    expect((await guarded.state({ threadId })).approvals).toHaveLength(1);
    await guarded.decide({ threadId, approvalId: request!.approvalId, decisions, principal: { id: "maria", roles: ["files:delete"] } });
    expect(await guarded.settled({ threadId })).toMatchObject({ status: "completed" });
    expect(deletedIn(threadId)).toEqual(["b"]);
  });

  it("is asked as a handle's principal when the handle decides: a thread handle decides as threads.decide does", async () => {
    const threadId = uid("t-handle");
    h.model.script(threadId, [{ toolCalls: [{ name: "deleteFile", arguments: { path: "c" } }] }, { text: "ok" }]);
    const asked: AuthorizeRequest[] = [];
    const guarded = new ThreadsClient({
      connection: h.connection,
      namespace: h.namespace,
      taskQueue,
      deferral: { secret: SECRET },
      agent: filesAgent,
      authorize: (req) => (asked.push(req), req.operation !== "thread.decide" || req.principal?.id === "maria"),
    });
    await guarded.createThread({ threadId, prompt: threadId, principal: { id: "sam" } });
    const [request] = (await waitingFor(threadId)).approvals;
    const decisions = [{ toolCallId: request!.calls[0]!.toolCallId, approved: true as const }];
    await expect(guarded.handle(threadId, { principal: { id: "sam" } }).decide({ approvalId: request!.approvalId, decisions })).rejects.toMatchObject({ code: "AI1021" });
    expect((await guarded.state({ threadId })).approvals).toHaveLength(1);
    expect(deletedIn(threadId)).toEqual([]);
    const maria = guarded.handle(threadId, { principal: { id: "maria" } });
    expect(await maria.decide({ approvalId: request!.approvalId, decisions })).toMatchObject({ status: "resumed", outcome: { status: "accepted" } });
    expect(asked.filter((r) => r.operation === "thread.decide").map((r) => [r.threadId, r.principal?.id])).toEqual([
      [threadId, "sam"],
      [threadId, "maria"],
    ]);
    expect(await maria.settled()).toMatchObject({ status: "completed" });
    expect(deletedIn(threadId)).toEqual(["c"]);
    // Deciding again through the handle reads the first outcome and runs nothing more.
    expect(await maria.decide({ approvalId: request!.approvalId, decisions })).toMatchObject({ status: "duplicate" });
    expect(deletedIn(threadId)).toEqual(["c"]);
  });

  it("asks thread.get before reading anything: a refused stranger gets the same AI1021 for a real request and an unknown id, and no query is made", async () => {
    const threadId = uid("t-stranger");
    h.model.script(threadId, [{ toolCalls: [{ name: "deleteFile", arguments: { path: "s" } }] }, { text: "ok" }]);
    await threads.createThread({ threadId, prompt: threadId, principal: { id: "sam" } });
    const [request] = (await waitingFor(threadId)).approvals;
    const queries: string[] = [];
    const counting: WorkflowClientInterceptor = { query: (input, next) => (queries.push(input.queryType), next(input)) };
    const asked: AuthorizeRequest[] = [];
    const guarded = new ThreadsClient({
      client: new Client({ connection: h.connection, namespace: h.namespace, interceptors: { workflow: [counting] } }),
      taskQueue,
      deferral: { secret: SECRET },
      authorize: (req) => (asked.push(req), req.principal?.id !== "mallory"),
    });
    const decisions = [{ toolCallId: request!.calls[0]!.toolCallId, approved: true as const }];
    const mallory = { id: "mallory" };
    const real = await guarded.decide({ threadId, approvalId: request!.approvalId, decisions, principal: mallory }).catch((e: unknown) => e);
    const unknown = await guarded.decide({ threadId, approvalId: `dfr:9:${threadId}`, decisions, principal: mallory }).catch((e: unknown) => e);
    expect(real).toMatchObject({ code: "AI1021" });
    const refusal = (e: unknown) => ({ code: (e as { code?: string }).code, message: (e as Error).message });
    expect(refusal(unknown)).toEqual(refusal(real));
    expect(queries).toEqual([]);
    expect(asked.map((r) => r.operation)).toEqual(["thread.get", "thread.get"]);
    expect(deletedIn(threadId)).toEqual([]);

    // Someone the hook lets in is asked thread.get, then thread.decide with the calls and meta, and decides.
    asked.length = 0;
    await expect(guarded.decide({ threadId, approvalId: `dfr:9:${threadId}`, decisions, principal: { id: "sam" } })).rejects.toMatchObject({ code: "RC5046" });
    await guarded.decide({ threadId, approvalId: request!.approvalId, decisions, principal: { id: "sam" } });
    expect(asked.map((r) => r.operation)).toEqual(["thread.get", "thread.get", "thread.decide"]);
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed" });
    expect(deletedIn(threadId)).toEqual(["s"]);
  });

  it("needs the deferral secret: a threads client without one refuses with RC5040 before asking or reading anything; agents.threads shares its AgentClient's", async () => {
    const threadId = uid("t-secret");
    h.model.script(threadId, [{ toolCalls: [{ name: "deleteFile", arguments: { path: "k" } }] }, { text: "ok" }]);
    await threads.createThread({ threadId, prompt: threadId });
    const [request] = (await waitingFor(threadId)).approvals;
    const decisions = [{ toolCallId: request!.calls[0]!.toolCallId, approved: true as const }];
    const queries: string[] = [];
    const counting: WorkflowClientInterceptor = { query: (input, next) => (queries.push(input.queryType), next(input)) };
    const asked: AuthorizeRequest[] = [];
    const secretless = new ThreadsClient({
      client: new Client({ connection: h.connection, namespace: h.namespace, interceptors: { workflow: [counting] } }),
      taskQueue,
      authorize: (req) => (asked.push(req), true),
    });
    await expect(secretless.decide({ threadId, approvalId: request!.approvalId, decisions })).rejects.toMatchObject({ code: "RC5040", message: expect.stringContaining("deferral: { secret }") });
    expect(queries).toEqual([]);
    expect(asked).toEqual([]);
    expect((await threads.state({ threadId })).approvals).toHaveLength(1);

    // An AgentClient's threads client takes no deferral option of its own: it decides with the AgentClient's secret.
    const withSecret = new AgentClient({ connection: h.connection, namespace: h.namespace, taskQueue, deferral: { secret: SECRET }, threads: { agent: filesAgent } });
    await expect(withSecret.threads.decide({ threadId, approvalId: request!.approvalId, decisions })).resolves.toMatchObject({ status: "resumed" });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed" });
    expect(deletedIn(threadId)).toEqual(["k"]);
  });

  it("is listed in the one inbox with the runs', and decided there", async () => {
    const threadId = uid("t-inbox");
    h.model.script(threadId, [{ toolCalls: [{ name: "deleteFile", arguments: { path: "c" } }] }, { text: "ok" }]);
    await threads.createThread({ threadId, prompt: threadId });
    const [request] = (await waitingFor(threadId)).approvals;
    const row = await vi.waitFor(
      async () => {
        const found = (await agents.approvals.list({ requires: "files:delete", limit: 1000 })).approvals.find((a) => a.approvalId === request!.approvalId);
        expect(found).toBeDefined();
        return found!;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(row).toMatchObject({ kind: "approval", runId: threadId, agentId: "files", calls: [{ toolName: "deleteFile" }] });
    await agents.approvals.decide({ approvalId: request!.approvalId, decisions: [{ toolCallId: request!.calls[0]!.toolCallId, approved: true }] });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed" });
    expect(deletedIn(threadId)).toEqual(["c"]);
  });
});

describe("a request and the thread's other moves", () => {
  it("outlives a stopped turn: a decision made while stopped is taken when the thread resumes", async () => {
    const threadId = uid("t-stop");
    h.model.script(threadId, [{ toolCalls: [{ name: "deleteFile", arguments: { path: "d" } }] }, { text: "deleted after the pause" }]);
    await threads.createThread({ threadId, prompt: threadId });
    const [request] = (await waitingFor(threadId)).approvals;
    await threads.stopThread({ threadId });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "stopped", approvals: [{ approvalId: request!.approvalId }] });
    await threads.decide({ threadId, approvalId: request!.approvalId, decisions: [{ toolCallId: request!.calls[0]!.toolCallId, approved: true }] });
    expect(deletedIn(threadId)).toEqual([]);
    await threads.resumeThread({ threadId });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed" });
    expect(deletedIn(threadId)).toEqual(["d"]);
  });

  it("is not withdrawn by a message sent while the turn holds on it: the message queues and is answered after the decision", async () => {
    const threadId = uid("t-queued");
    h.model.script(threadId, [{ toolCalls: [{ name: "deleteFile", arguments: { path: "q" } }] }, { text: "deleted q" }, { text: "and now the next one" }]);
    await threads.createThread({ threadId, prompt: threadId });
    const [request] = (await waitingFor(threadId)).approvals;
    expect(await threads.sendMessage({ threadId, prompt: "meanwhile" })).toMatchObject({ queued: true });
    const view = await threads.state({ threadId });
    expect(view.approvals).toEqual([request]);
    expect(view.queued).toHaveLength(1);
    await threads.decide({ threadId, approvalId: request!.approvalId, decisions: [{ toolCallId: request!.calls[0]!.toolCallId, approved: true }] });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed", queued: [] });
    expect(deletedIn(threadId)).toEqual(["q"]);
    const { messages } = await threads.listMessages({ threadId, cursor: "0", limit: 1000 });
    expect(messages.filter((m) => m.role === "assistant" && typeof m.content === "string" && m.content !== "").map((m) => m.content)).toEqual(["deleted q", "and now the next one"]);
  });

  it("is withdrawn when a new message moves the thread on, or the thread is deleted: its decision is refused and nothing runs", async () => {
    const threadId = uid("t-moved-on");
    h.model.script(threadId, [{ toolCalls: [{ name: "deleteFile", arguments: { path: "e" } }] }, { text: "moved on" }]);
    await threads.createThread({ threadId, prompt: threadId });
    const [request] = (await waitingFor(threadId)).approvals;
    await threads.stopThread({ threadId });
    await threads.sendMessage({ threadId, prompt: "never mind" });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed", approvals: [] });
    await expect(threads.decide({ threadId, approvalId: request!.approvalId, decisions: [{ toolCallId: request!.calls[0]!.toolCallId, approved: true }] })).rejects.toMatchObject({ code: "RC5050" });
    expect(deletedIn(threadId)).toEqual([]);
    // Readers hear that it is gone: the stream decides it (denied), and no approval card is left.
    const { updates } = await threads.streamUpdates({ threadId });
    expect(updates.filter((u) => u.type === "approval-decided" && u.approvalId === request!.approvalId)).toEqual([expect.objectContaining({ outcome: "denied" })]);
    expect(foldStreamUpdates(emptyFold(), updates).approvals).toEqual([]);

    const gone = uid("t-deleted");
    h.model.script(gone, [{ toolCalls: [{ name: "deleteFile", arguments: { path: "f" } }] }]);
    await threads.createThread({ threadId: gone, prompt: gone });
    const [pending] = (await waitingFor(gone)).approvals;
    await threads.deleteThread({ threadId: gone });
    await expect(agents.approvals.decide({ approvalId: pending!.approvalId, decisions: [{ toolCallId: pending!.calls[0]!.toolCallId, approved: true }] })).rejects.toMatchObject({ code: expect.stringMatching(/^(RC5046|RC5050|AI1020)$/) });
    expect(deletedIn(gone)).toEqual([]);
  });
});
