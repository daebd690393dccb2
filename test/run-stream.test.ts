/**
 * Runs stream like threads: a reader of a run (`agents.followUpdates`, the front door's
 * `GET /runs/:id/events`) gets each message as it joins the transcript, the status changes,
 * each deferral's request and decision, and, for a run started with `stream: true`, the
 * answer while the model writes it, through the same stream transport threads use (or by
 * signal on a worker that streams that way). What a reader sees: entries in seq order,
 * nothing lost or repeated, the same whether it stayed or came back with `Last-Event-ID`.
 */
import proto from "@temporalio/proto";
import { Client, type WorkflowClientInterceptor } from "@temporalio/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  AgentClient,
  defineAgent,
  defineTool,
  inProcessStreamTransport,
  type ApprovalRequestInfo,
  type StreamBatch,
  type StreamSnapshot,
  type StreamUpdate,
} from "../src/index.js";
import { TransportPairs } from "./stream-transports.js";
import { runStreamQuery } from "../src/workflow.js";
import { workflowMetadataQuery } from "@temporalio/workflow";
import { threadStreamSignal } from "../src/core/wire/thread.js";
import { SECRET, startHarness, uid, workflowTaskFailures, type Harness } from "./harness.js";
import { ascending, deltaText, isDelta, seqsOf } from "./stream-entries.js";
import { openEvents, startHttp, type HttpServer } from "./http-support.js";

const { EventType } = proto.temporal.api.enums.v1;
const POLL_MS = 50;
const WAIT = { timeout: 30_000, interval: 20 };
const STORY =
  "A run's answer reached its readers while the model wrote it, numbered by the run and carried " +
  "out of band, and the run's history kept only what it must: the calls, their results, the end.";

const notified: ApprovalRequestInfo[] = [];
const paid: string[] = [];
const sendPayout = defineTool({
  name: "sendPayout",
  description: "Send money",
  input: z.object({ amount: z.number().positive(), to: z.string() }),
  needsApproval: true,
  approval: { ttl: "1h", notify: (request) => void notified.push(request) },
  handler: ({ amount, to }, ctx) => {
    paid.push(ctx.runId);
    return `sent ${amount} to ${to}`;
  },
});
const step = defineTool({ name: "step", description: "Take a step", input: z.object({ i: z.number() }), handler: ({ i }) => `ok ${i}` });
const writer = defineAgent({ id: "stream-writer", model: "gpt-4.1-mini", system: "You write and pay.", tools: [sendPayout, step], maxTurns: 40 });

let h: Harness;
/** A worker that publishes deltas on the in-process transport, and its client. */
let agents: AgentClient;
/** A worker (own queue) that streams by signal (`"workflow"`), and its client. */
let bySignal: AgentClient;
let http: HttpServer;
const pairs = new TransportPairs();
const cleanup: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([writer], { deferral: { secret: SECRET }, threads: { stream: { transport: inProcessStreamTransport() } }, client: { deferral: { secret: SECRET } } }));
  ({ agents: bySignal } = await h.worker([writer], { deferral: { secret: SECRET }, threads: { stream: { transport: "workflow" } }, client: { deferral: { secret: SECRET } } }));
  http = await startHttp({ agents, events: { pollInterval: POLL_MS } });
});
afterAll(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
  await http?.close();
  await h?.close();
  await pairs.stop();
});

const ended = (u: StreamUpdate) => u.type === "status" && ["completed", "failed", "stopped"].includes(u.status);
const statuses = (updates: StreamUpdate[]) => updates.flatMap((u) => (u.type === "status" ? [u.status] : []));
/** The durable entries, as a reader would show them. */
const durable = (updates: StreamUpdate[]) => updates.filter((u) => !isDelta(u)).map(shown);
function shown(u: StreamUpdate): string {
  if (u.type === "status") return `status:${u.status}`;
  if (u.type !== "message") return u.type;
  const calls = "tool_calls" in u.message && u.message.tool_calls ? `[${u.message.tool_calls.map((c) => c.function.name).join(",")}]` : "";
  return `${u.message.id}:${u.message.role}:${u.message.content ?? ""}${calls}`;
}

/** A followUpdates reader collecting its batches until the run ends. */
function follow(client: AgentClient, runId: string, options: { fromSeq?: number; until?: (u: StreamUpdate) => boolean } = {}) {
  const batches: StreamSnapshot[] = [];
  const until = options.until ?? ended;
  const done = (async () => {
    for await (const batch of client.followUpdates({ runId, pollInterval: POLL_MS, ...(options.fromSeq !== undefined ? { fromSeq: options.fromSeq } : {}), until: (b) => b.updates.some(until) })) batches.push(batch);
  })();
  return { batches, updates: () => batches.flatMap((b) => b.updates), done };
}

async function signalsOf(client: AgentClient, runId: string) {
  const events = (await client.workflowHandle(runId).fetchHistory()).events ?? [];
  return events.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED).length;
}

describe("a run started with stream: true", () => {
  for (const [how, client] of [
    ["on the worker's stream transport, with no signal in its history", () => agents],
    ["by signal, on a worker that streams that way", () => bySignal],
  ] as const) {
    it(`reaches a reader while the answer is written, ${how}`, async () => {
      const runId = uid("run-stream");
      const start = h.model.hold();
      const mid = h.model.hold();
      h.model.script(runId, [{ text: STORY, hold: start, holds: [{ hold: mid, afterChars: 40 }] }]);
      const handle = await client().start(writer, { prompt: runId, runId, stream: true });
      const reader = follow(client(), runId);
      // The reader has the run's first entries: it is following before the model writes a word.
      await vi.waitFor(() => expect(statuses(reader.updates())).toContain("streaming"), WAIT);
      await start.reached;
      start.release();
      await mid.reached;
      // The model is held mid-answer: what the reader has came while it was being written.
      await vi.waitFor(() => expect(deltaText(reader.updates()).length).toBeGreaterThanOrEqual(40), WAIT);
      expect(reader.updates().some((u) => u.type === "message" && u.message.role === "assistant")).toBe(false);
      mid.release();
      await reader.done;

      const updates = reader.updates();
      expect(seqsOf(updates)).toEqual(ascending(seqsOf(updates)));
      expect(STORY.startsWith(deltaText(updates))).toBe(true);
      expect(durable(updates)).toEqual([`0:user:${runId}`, "status:streaming", `1:assistant:${STORY}`, "status:completed"]);
      expect(await handle.result()).toMatchObject({ status: "completed", text: STORY });
      const signals = await signalsOf(client(), runId);
      if (client() === agents) expect(signals).toBe(0);
      else expect(signals).toBeGreaterThan(0);
      expect(await workflowTaskFailures(client().client, runId)).toEqual([]);
    });
  }

  // The title's second %s is the bound on reads, so it comes second.
  it.each([
    [
      "its own Redis connection",
      // Redis keeps nothing: a reader that subscribed after the run's first entries reads them once.
      1,
      pairs.redis,
    ],
    // No broker: the reader's transport finds the worker's endpoint among the queue's pollers, which replays what it published.
    ["a direct transport of its own", 0, pairs.direct],
  ] as const)("reaches a reader whose client has %s, as in another process: live, no signal, at most %s read to join", async (_how, reads, transports) => {
    const [onWorker, onReader] = await transports();
    cleanup.push(() => onWorker.close(), () => onReader.close());
    const { agents: published, taskQueue } = await h.worker([writer], { deferral: { secret: SECRET }, threads: { stream: { transport: onWorker } }, client: { stream: { transport: onWorker } } });
    // The reader's client counts the run's stream queries it makes (billed actions).
    let streamQueries = 0;
    const counting: WorkflowClientInterceptor = {
      query(input, next) {
        if (input.queryType === runStreamQuery.name) streamQueries++;
        return next(input);
      },
    };
    const reading = new AgentClient({ client: new Client({ connection: h.connection, namespace: h.namespace, interceptors: { workflow: [counting] } }), taskQueue, stream: { transport: onReader } });

    const runId = uid("run-stream-redis");
    const start = h.model.hold();
    const mid = h.model.hold();
    h.model.script(runId, [{ text: STORY, hold: start, holds: [{ hold: mid, afterChars: 40 }] }]);
    const handle = await published.start(writer, { prompt: runId, runId, stream: true });
    const reader = follow(reading, runId);
    await vi.waitFor(() => expect(statuses(reader.updates())).toContain("streaming"), WAIT);
    start.release();
    await mid.reached;
    await vi.waitFor(() => expect(deltaText(reader.updates()).length).toBeGreaterThanOrEqual(40), WAIT);
    mid.release();
    await reader.done;
    expect(durable(reader.updates())).toEqual([`0:user:${runId}`, "status:streaming", `1:assistant:${STORY}`, "status:completed"]);
    expect(seqsOf(reader.updates())).toEqual(ascending(seqsOf(reader.updates())));
    expect(await handle.result()).toMatchObject({ text: STORY });
    expect(await signalsOf(published, runId)).toBe(0);
    expect(streamQueries).toBeLessThanOrEqual(reads);
  });

  it("keeps a reader of another process off the billed query however late its transport brings what the status line announced", async () => {
    const [onWorker, onReader] = await pairs.direct();
    cleanup.push(() => onWorker.close(), () => onReader.close());
    const { agents: published, taskQueue } = await h.worker([writer], { deferral: { secret: SECRET }, threads: { stream: { transport: onWorker } }, client: { stream: { transport: onWorker } } });
    // A busy machine, made to order: the reader's transport hands on each batch with a durable
    // entry only after the reader has read a status line announcing it and looked at the run
    // LOOKS more times (describes, free). Reading the log instead would be a billed query.
    const LOOKS = 3;
    let streamQueries = 0;
    let looks = 0;
    let announced = -1;
    const held: Array<{ batch: StreamBatch; deliver: (batch: StreamBatch) => void; announcedAt?: number }> = [];
    const handOn = () => {
      for (const waiting of held) if (waiting.announcedAt === undefined && Math.max(...waiting.batch.entries.map((e) => e.seq)) <= announced) waiting.announcedAt = looks;
      while (held[0]?.announcedAt !== undefined && looks - held[0].announcedAt >= LOOKS) {
        const { batch, deliver } = held.shift()!;
        deliver(batch);
      }
    };
    const subscribe = onReader.subscribe.bind(onReader);
    onReader.subscribe = (threadId, listener, context) =>
      subscribe(
        threadId,
        (batch) => {
          if (held.length === 0 && batch.entries.every((e) => isDelta(e) || e.type === "tool-progress")) return listener(batch);
          held.push({ batch, deliver: listener });
          handOn();
        },
        context,
      );
    const counting: WorkflowClientInterceptor = {
      async query(input, next) {
        if (input.queryType === runStreamQuery.name) streamQueries++;
        const answer = await next(input);
        const line = input.queryType === workflowMetadataQuery.name ? / · stream (\d+)/.exec((answer as { currentDetails?: string }).currentDetails ?? "") : null;
        if (line) announced = Math.max(announced, Number(line[1]));
        handOn();
        return answer;
      },
      async describe(input, next) {
        const described = await next(input);
        looks++;
        handOn();
        return described;
      },
    };
    const reading = new AgentClient({ client: new Client({ connection: h.connection, namespace: h.namespace, interceptors: { workflow: [counting] } }), taskQueue, stream: { transport: onReader } });

    const runId = uid("run-stream-late");
    const start = h.model.hold();
    h.model.script(runId, [{ text: STORY, hold: start }]);
    await published.start(writer, { prompt: runId, runId, stream: true });
    const reader = follow(reading, runId);
    // Joining: the run's first entries reach the reader late.
    await vi.waitFor(() => expect(statuses(reader.updates())).toContain("streaming"), WAIT);
    start.release();
    // Ending: so do the answer and the status that ends the run.
    await reader.done;
    expect(durable(reader.updates())).toEqual([`0:user:${runId}`, "status:streaming", `1:assistant:${STORY}`, "status:completed"]);
    expect(streamQueries).toBe(0);
  });

  it("stops streaming when cancelled mid-answer: readers drop the draft and hear `stopped`", async () => {
    const runId = uid("run-stream-cancel");
    const mid = h.model.hold();
    h.model.script(runId, [{ text: STORY, holds: [{ hold: mid, afterChars: 30 }] }]);
    await agents.start(writer, { prompt: runId, runId, stream: true });
    const reader = follow(agents, runId);
    await mid.reached;
    await vi.waitFor(() => expect(deltaText(reader.updates()).length).toBeGreaterThan(0), WAIT);
    await agents.cancel({ runId, reason: "enough" });
    await reader.done;
    const updates = reader.updates();
    const reset = updates.find((u) => u.type === "reset");
    expect(reset).toMatchObject({ type: "reset", messageId: "1", reason: "stopped" });
    expect(statuses(updates).at(-1)).toBe("stopped");
    expect(updates.some((u) => u.type === "message" && u.message.role === "assistant")).toBe(false);
    // The cut-off draft is no answer: the transcript does not keep it.
    await expect(agents.result({ runId })).rejects.toMatchObject({ code: "AI1005" });
    expect((await agents.listMessages({ runId })).messages.map((m) => m.role)).toEqual(["user"]);
    mid.release();
  });
});

describe("any run's stream", () => {
  it("goes on across continue-as-new: seqs keep rising, each message once, and a reader behind the boundary is told to re-read", async () => {
    const runId = uid("run-stream-long");
    const turns = 24;
    h.model.respond(runId, (_req, turn) => (turn < turns ? { toolCalls: [{ name: "step", arguments: { i: turn } }] } : { text: `walked ${turns}` }));
    const handle = await agents.start(writer, { prompt: runId, runId, maxHistoryEvents: 100, stream: true });
    const reader = follow(agents, runId);
    await reader.done;
    expect(await handle.result()).toMatchObject({ status: "completed", text: `walked ${turns}` });
    const updates = reader.updates();
    expect(seqsOf(updates)).toEqual(ascending(seqsOf(updates)));
    const ids = updates.flatMap((u) => (u.type === "message" ? [Number(u.message.id)] : []));
    expect(ids).toEqual(ascending(ids));
    expect(statuses(updates).at(-1)).toBe("completed");
    // Every message the reader got is the transcript's at its position.
    const { messages, total } = await agents.listMessages({ runId, limit: 1000 });
    expect(total).toBe(2 * turns + 2);
    for (const u of updates) if (u.type === "message") expect(u.message.content).toBe(messages[Number(u.message.id)]!.content);
    // It did continue as new, and the last execution's stream starts past the first's.
    const executions = [];
    for await (const e of agents.client.workflow.list({ query: `WorkflowId = "${runId}"` })) executions.push(e);
    expect(executions.length).toBeGreaterThan(1);
    const fromStart = await agents.streamUpdates({ runId });
    expect(fromStart.truncated).toBe(true);
    expect(fromStart.updates.at(-1)).toMatchObject({ type: "status", status: "completed" });
    expect(fromStart.updates[0]!.seq).toBeGreaterThan(2);
  });

  it("holds its messages, statuses and the approval it parked on; a reader back with Last-Event-ID gets exactly what followed", async () => {
    const runId = uid("run-events");
    h.model.script(runId, [{ toolCalls: [{ name: "sendPayout", arguments: { amount: 12, to: "acme" } }] }, { text: "paid" }]);
    const ack = await agents.run(writer, { prompt: runId, runId });
    expect(ack).toMatchObject({ status: "deferred" });

    const first = await openEvents(`${http.url}/runs/${runId}/events`);
    await first.until((e) => e.data.includes('"approval-request"'));
    first.close();
    const seen = first.events.map((e) => JSON.parse(e.data) as StreamUpdate);
    const request = seen.find((u) => u.type === "approval-request") as Extract<StreamUpdate, { type: "approval-request" }>;
    expect(request).toMatchObject({ approvalId: (ack as { deferralId: string }).deferralId, calls: [{ toolName: "sendPayout", arguments: JSON.stringify({ amount: 12, to: "acme" }) }] });
    expect(first.events.map((e) => Number(e.id))).toEqual(seqsOf(seen));
    expect(statuses(seen)).toEqual(["streaming", "awaiting_tool_results"]);
    // Not streamed: no deltas, and the run's history holds no signal.
    expect(seen.some(isDelta)).toBe(false);

    const info = await vi.waitFor(() => {
      const found = notified.find((n) => n.runId === runId);
      expect(found).toBeDefined();
      return found!;
    }, WAIT);
    const lastEventId = first.events.at(-1)!.id!;
    await agents.resume({ token: info.token, payload: { decisions: [{ toolCallId: info.calls[0]!.toolCallId, approved: true }] } });
    const again = await openEvents(`${http.url}/runs/${runId}/events`, { lastEventId });
    await again.until((e) => e.data.includes('"status":"completed"'));
    again.close();
    const rest = again.events.map((e) => JSON.parse(e.data) as StreamUpdate);
    expect(rest.every((u) => u.seq > Number(lastEventId))).toBe(true);
    expect(durable(rest)).toEqual(["approval-decided", "2:tool:sent 12 to acme", "status:streaming", "3:assistant:paid", "status:completed"]);
    expect(rest[0]).toMatchObject({ type: "approval-decided", approvalId: request.approvalId, outcome: "resumed" });
    expect(paid.filter((id) => id === runId)).toHaveLength(1);
    expect(await signalsOf(agents, runId)).toBe(0);

    // One read by query says the same, from any seq.
    const snapshot = await agents.streamUpdates({ runId, fromSeq: Number(lastEventId) });
    expect(durable(snapshot.updates)).toEqual(durable(rest));
    expect(snapshot).toMatchObject({ threadId: runId, status: "completed", truncated: false });
  });

  it("refuses hostile readers with typed codes and leaves the run as it was", async () => {
    const runId = uid("run-stream-hostile");
    h.model.script(runId, [{ text: "fine" }]);
    await agents.run(writer, { prompt: runId, runId });
    const before = await agents.streamUpdates({ runId });

    await expect(agents.streamUpdates({ runId: uid("no-such-run") })).rejects.toMatchObject({ code: "AI1010" });
    const unknown = agents.followUpdates({ runId: uid("no-such-run") });
    await expect(unknown.next()).rejects.toMatchObject({ code: "AI1010" });
    for (const fromSeq of [-1, 1.5, Number.NaN, "3" as unknown as number]) {
      await expect(agents.streamUpdates({ runId, fromSeq })).rejects.toMatchObject({ code: "AI1001" });
      await expect(agents.followUpdates({ runId, fromSeq }).next()).rejects.toMatchObject({ code: "AI1001" });
    }
    await expect(agents.start(writer, { prompt: "x", stream: "yes" as unknown as boolean })).rejects.toMatchObject({ code: "AI1001" });

    const guarded = new AgentClient({ client: agents.client, taskQueue: agents.taskQueue, authorize: (request) => request.operation !== "run.state" });
    await expect(guarded.streamUpdates({ runId, principal: { id: "mallory" } })).rejects.toMatchObject({ code: "AI1013" });
    await expect(guarded.followUpdates({ runId, principal: { id: "mallory" } }).next()).rejects.toMatchObject({ code: "AI1013" });

    // Over HTTP: a bad Last-Event-ID, an unknown run, an id too long to be one.
    expect(await openEvents(`${http.url}/runs/${runId}/events`, { lastEventId: "12abc" })).toMatchObject({ status: 400, errorBody: { error: { code: "AI1040" } } });
    expect(await openEvents(`${http.url}/runs/${uid("no-such-run")}/events`)).toMatchObject({ status: 404, errorBody: { error: { code: "AI1010" } } });
    expect((await openEvents(`${http.url}/runs/${"r".repeat(5000)}/events`)).status).toBe(400);
    const notBoolean = await http.call("POST", "/runs", { body: { agent: writer.id, prompt: "x", runId: uid("never-started"), stream: "yes" } });
    expect(notBoolean).toMatchObject({ status: 400, body: { error: { code: "AI1040" } } });

    // Straight at the workflow: a malformed read is refused, forged deltas are dropped.
    const wf = agents.workflowHandle(runId);
    await expect(wf.query(runStreamQuery, "junk" as unknown as { fromSeq: number })).rejects.toThrow();
    const live = uid("run-stream-live");
    const hold = h.model.hold();
    h.model.script(live, [{ text: "kept", hold }]);
    await agents.start(writer, { prompt: live, runId: live, stream: true });
    await hold.reached;
    const forged = agents.workflowHandle(live);
    await forged.signal(threadStreamSignal, "junk" as never);
    await forged.signal(threadStreamSignal, { streamId: "1", attempt: 1, parts: [{ kind: "text", text: "x".repeat(100_000) }, { kind: "bogus" }] } as never);
    await forged.signal(threadStreamSignal, { streamId: "elsewhere", attempt: 1, parts: [{ kind: "text", text: "forged" }] });
    hold.release();
    expect(await agents.handle(live).result()).toMatchObject({ status: "completed", text: "kept" });
    const shown = await agents.streamUpdates({ runId: live });
    expect(deltaText(shown.updates)).toBe("");
    expect(JSON.stringify(shown)).not.toContain("forged");
    expect(await workflowTaskFailures(agents.client, live)).toEqual([]);
    expect(await agents.streamUpdates({ runId })).toEqual(before);
  });
});

describe("a run's handle", () => {
  it("reads and follows the run's stream as the client does, with the same options", async () => {
    const runId = uid("run-handle-stream");
    const hold = h.model.hold();
    h.model.script(runId, [{ text: STORY, holds: [{ hold, afterChars: 40 }] }]);
    const handle = await agents.start(writer, { prompt: runId, runId, stream: true });
    // A poll interval that is not a duration is refused before anything is read.
    await expect(handle.followUpdates({ pollInterval: "often" as never }).next()).rejects.toMatchObject({ code: "AI1001" });
    const batches: StreamSnapshot[] = [];
    const following = (async () => {
      for await (const batch of handle.followUpdates({ pollInterval: "50ms", until: (b) => b.updates.some(ended) })) batches.push(batch);
    })();
    await hold.reached;
    // Held mid-answer: the handle's reader has the deltas written so far.
    await vi.waitFor(() => expect(deltaText(batches.flatMap((b) => b.updates)).length).toBeGreaterThanOrEqual(40), WAIT);
    hold.release();
    await following;
    const updates = batches.flatMap((b) => b.updates);
    expect(durable(updates)).toEqual([`0:user:${runId}`, "status:streaming", `1:assistant:${STORY}`, "status:completed"]);
    // One read of the stream, through the handle and through the client: the same entries.
    const read = await handle.streamUpdates();
    expect(await agents.streamUpdates({ runId })).toEqual(read);
    expect(durable(read.updates)).toEqual(durable(updates));
    expect((await handle.streamUpdates({ fromSeq: read.lastSeq })).updates).toEqual([]);
  });
});
