/**
 * The worker's side of the direct stream transport, without Temporal: its endpoint serves a
 * thread's batches to a reader that names the thread's run, refuses what is not such a
 * request with a status and a reason, and its options are checked before anything listens.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { request } from "node:http";
import { createInterface } from "node:readline";
import { connect as connectTls } from "node:tls";
import { fileURLToPath } from "node:url";
import type { Client } from "@temporalio/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { aesGcmCodec, directStreamTransport, StreamTransportInvalidError, type DirectStreamTransport, type StreamBatch } from "../../src/index.js";
import { STREAM_KEY_MEMO } from "../../src/core/stream-key.js";
import { batchFromText } from "../../src/stream/batch-text.js";
import { defaultHost, isPrivateAddress } from "../../src/stream/direct.js";
import { BEACON_FRESH_MS, beaconIdentity, type EndpointAnnouncement } from "../../src/stream/direct-beacon.js";
import { WorkerDirectory } from "../../src/stream/direct-peers.js";
import { channelBinding, gateProof, randomKey, readProof } from "../../src/stream/direct-proof.js";
import { readEndpoint, type Ask } from "../stream-endpoint.js";
import { durableAgentsPlugin, openaiModel } from "../../src/worker.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const RUN = "6f1c1f7e-1d5b-4b43-9a59-3f6e8f6d2a10";
/** The stream key the threads' memos hold, as the client that started them made it. */
const KEY = randomKey();
const batch = (seq: number): StreamBatch => ({ after: 1, entries: [{ seq, type: "text-delta", messageId: "m1", text: `piece ${seq}` }] });

/** Temporal, as far as an endpoint asks it (a describe of the run): every run but `unknown` has KEY in its memo. Counts the describes. */
function temporal(): Client & { describes: number } {
  const client = {
    describes: 0,
    workflow: {
      getHandle: (_threadId: string, runId?: string) => ({
        describe: async () => {
          client.describes++;
          if (runId === "unknown") throw new Error("workflow not found");
          return { memo: { [STREAM_KEY_MEMO]: KEY } };
        },
      }),
    },
  };
  return client as unknown as Client & { describes: number };
}

const open: DirectStreamTransport[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});

async function listening(options: Parameters<typeof directStreamTransport>[0] = {}): Promise<{ transport: DirectStreamTransport; at: EndpointAnnouncement; client: Client & { describes: number } }> {
  const transport = directStreamTransport({ host: "127.0.0.1", ...options });
  open.push(transport);
  await transport.listen();
  const client = temporal();
  transport.verifyWith(client);
  return { transport, at: transport.announcement!, client };
}

/** A reader holding the thread's key, asking as `ThreadPeers` does (what `ask` leaves out). */
const get = (at: EndpointAnnouncement, ask: Partial<Ask> = {}) => readEndpoint(at, { thread: "t", run: RUN, key: KEY, ...ask });

/** The endpoint counts a reader out when its side of the connection closes: a status the test waits for. */
const connectionsReach = (transport: DirectStreamTransport, count: number) => vi.waitFor(() => expect(transport.connections).toBe(count));

describe("a worker's direct stream endpoint", () => {
  it("writes each batch published for the thread's run to its readers, one line each, and nothing of other runs or threads", async () => {
    const { transport, at } = await listening();
    const reader = await get(at, { thread: "thread/one ü" });
    const otherRun = await get(at, { thread: "thread/one ü", run: "someone-else" });
    expect([reader.status, otherRun.status]).toEqual([200, 200]);
    // Counted before the response's head went out.
    expect(transport.connections).toBe(2);

    await transport.publish("thread/one ü", batch(2), { runId: RUN });
    await transport.publish("thread/one ü", batch(3), { runId: "another-run" });
    await transport.publish("another thread", batch(4), { runId: RUN });
    // Without a run nothing leaves the process: a reader could not have named it.
    await transport.publish("thread/one ü", batch(5));
    await transport.publish("thread/one ü", batch(6), { runId: RUN });
    await reader.linesReached(2);
    expect(reader.lines.map((l) => JSON.parse(l))).toEqual([batch(2), batch(6)]);
    expect(otherRun.lines).toEqual([]);

    reader.close();
    otherRun.close();
    await connectionsReach(transport, 0);
  });

  it("gives a reader that connects mid-answer the answer's deltas so far first, of its run only; of an answer that ended, the entry that ended it and none of its deltas", async () => {
    const { transport, at } = await listening();
    const thread = "mid-answer";
    // Published with nobody connected: the answer has begun before the reader arrives.
    await transport.publish(thread, batch(2), { runId: RUN });
    await transport.publish(thread, batch(3), { runId: "an-older-run" });
    await transport.publish(thread, batch(4), { runId: RUN });
    const late = await get(at, { thread });
    await late.linesReached(2);
    await transport.publish(thread, batch(5), { runId: RUN });
    await late.linesReached(3);
    expect(late.lines.map((l) => JSON.parse(l))).toEqual([batch(2), batch(4), batch(5)]);

    // A durable entry ends the answer: a reader after that gets that entry (the thread keeps it), not the deltas before it, then what follows.
    const message: StreamBatch = { after: 1, entries: [{ seq: 6, type: "status", status: "completed", previousStatus: "streaming", at: new Date(0).toISOString() }] };
    await transport.publish(thread, message, { runId: RUN });
    await late.linesReached(4);
    const after = await get(at, { thread });
    await transport.publish(thread, batch(9), { runId: RUN });
    await after.linesReached(2);
    expect(after.lines.map((l) => JSON.parse(l))).toEqual([message, batch(9)]);

    // In this process the same holds for a subscriber of the transport itself.
    await transport.publish("local", batch(2), { runId: RUN });
    const heard: StreamBatch[] = [];
    const subscription = await transport.subscribe("local", (b) => heard.push(b));
    expect(heard).toEqual([batch(2)]);
    await subscription.unsubscribe();
    late.close();
    after.close();
    await connectionsReach(transport, 0);
  });

  it("refuses what is not a reader's request with a status, and keeps nobody connected", async () => {
    const { transport, at } = await listening();
    const cases: Array<[Partial<Ask>, number, RegExp]> = [
      [{ method: "POST" }, 405, /only GET/],
      [{ path: "/" }, 404, /not found/],
      [{ path: `/v1/threads/t?run=${RUN}` }, 404, /not found/],
      [{ path: `/v2/threads/%E0%A4%A?run=${RUN}` }, 400, /URI encoding/],
      [{ path: `/v2/threads/?run=${RUN}` }, 400, /thread id/],
      [{ path: `/v2/threads/${"x".repeat(1_001)}?run=${RUN}` }, 400, /1 to 1000/],
      [{ path: "/v2/threads/t" }, 400, /run must be/],
      [{ path: `/v2/threads/t?run=${"r".repeat(129)}` }, 400, /run must be/],
    ];
    for (const [ask, status, reason] of cases) {
      const res = await get(at, ask);
      expect({ ask: JSON.stringify(ask).slice(0, 60), status: res.status }).toEqual({ ask: JSON.stringify(ask).slice(0, 60), status });
      expect(await res.body).toMatch(reason);
    }
    expect(transport.connections).toBe(0);
  });

  it("lets in only a reader that proves the gate and the run's stream key on this connection: the thread and run ids alone (what a token carries) get 403, and a stranger costs no lookup", async () => {
    const { transport, at, client } = await listening();
    const asks: Array<[string, Partial<Ask>]> = [
      ["ids only (an approval link's holder)", { gate: null, key: null }],
      ["the gate, no key", { key: null }],
      ["the gate and another thread's key", { key: randomKey() }],
      ["the key but a made-up gate", { gate: randomKey() }],
      ["the key, the gate, a run with no key", { run: "unknown" }],
    ];
    for (const [who, ask] of asks) {
      const res = await get(at, ask);
      expect({ who, status: res.status, body: await res.body }).toEqual({ who, status: 403, body: "refused\n" });
    }
    expect(transport.connections).toBe(0);
    // Those without the gate were turned away in memory; each request with it asked Temporal once at most.
    expect(client.describes).toBeLessThanOrEqual(3);
    const before = client.describes;
    await get(at, { gate: randomKey() });
    await get(at, { gate: null, key: null, run: "made-up" });
    expect(client.describes).toBe(before);

    // A proof is bound to the connection it was made on: replayed on another, it is refused.
    const target = new URL(at.url);
    const first = connectTls({ host: target.hostname, port: Number(target.port), rejectUnauthorized: false });
    await new Promise((r) => first.once("secureConnect", r));
    const stolen = { gate: gateProof(at.gate, channelBinding(first)), proof: readProof(KEY, channelBinding(first), "t", RUN) };
    first.destroy();
    const replay = connectTls({ host: target.hostname, port: Number(target.port), rejectUnauthorized: false });
    await new Promise((r) => replay.once("secureConnect", r));
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ createConnection: () => replay, path: `/v2/threads/t?run=${RUN}`, headers: { "x-durable-agents-gate": stolen.gate, "x-durable-agents-proof": stolen.proof } });
      req.on("response", (res) => resolve(res.statusCode!)).on("error", reject).end();
    });
    expect(status).toBe(403);
    replay.destroy();

    const reader = await get(at);
    expect(reader.status).toBe(200);
    reader.close();
  });

  it("gives strangers no reader's place: 1,024 connections that prove nothing, open or refused, leave a real reader its batches", async () => {
    const { transport, at } = await listening({ maxConnections: 4 });
    const target = new URL(at.url);
    // Half hold a TLS connection open and say nothing; half ask with made-up ids and no proof.
    const silent = await Promise.all(
      Array.from({ length: 512 }, () => new Promise<ReturnType<typeof connectTls>>((resolve) => {
        const socket = connectTls({ host: target.hostname, port: Number(target.port), rejectUnauthorized: false });
        socket.on("error", () => undefined);
        socket.once("secureConnect", () => resolve(socket));
      })),
    );
    const refused = await Promise.all(Array.from({ length: 512 }, (_, i) => get(at, { thread: `made-up-${i}`, run: `run-${i}`, gate: null, key: null })));
    expect(new Set(refused.map((r) => r.status))).toEqual(new Set([403]));
    expect(transport.connections).toBe(0);

    const reader = await get(at);
    expect(reader.status).toBe(200);
    await transport.publish("t", batch(2), { runId: RUN });
    await reader.linesReached(1);
    expect(JSON.parse(reader.lines[0]!)).toEqual(batch(2));
    reader.close();
    for (const socket of silent) socket.destroy();
  }, 60_000);

  it("refuses a reader past maxConnections (it reads the thread instead) and takes one again once a place is free", async () => {
    const { transport, at } = await listening({ maxConnections: 1 });
    const first = await get(at);
    const second = await get(at);
    expect([first.status, second.status]).toEqual([200, 503]);
    expect(await second.body).toMatch(/too many readers/);
    first.close();
    await connectionsReach(transport, 0);
    const third = await get(at);
    expect(third.status).toBe(200);
    third.close();
  });

  it("will not send a batch over maxMessageBytes (readers would drop it): the publish rejects, and readers get nothing", async () => {
    const { transport, at } = await listening({ maxMessageBytes: 200 });
    const reader = await get(at);
    expect(transport.connections).toBe(1);
    const huge: StreamBatch = { after: 1, entries: [{ seq: 2, type: "text-delta", messageId: "m1", text: "x".repeat(500) }] };
    await expect(transport.publish("t", huge, { runId: RUN })).rejects.toThrow(/over maxMessageBytes \(200\)/);
    await transport.publish("t", batch(3), { runId: RUN });
    await reader.linesReached(1);
    expect(JSON.parse(reader.lines[0]!)).toEqual(batch(3));
    reader.close();
  });

  it("with a codec, sends no message text in the clear: a reader with the same codec reads the batch back", async () => {
    const codec = aesGcmCodec({ keys: { k1: randomBytes(32).toString("base64") }, current: "k1" });
    const { transport, at } = await listening({ codec });
    const reader = await get(at);
    expect(transport.connections).toBe(1);
    const secret: StreamBatch = { after: 1, entries: [{ seq: 2, type: "text-delta", messageId: "m1", text: "the vault code is 4711" }] };
    await transport.publish("t", secret, { runId: RUN });
    await reader.linesReached(1);
    expect(reader.lines[0]).not.toContain("4711");
    expect(await batchFromText(reader.lines[0]!, codec)).toEqual({ batch: secret });
    expect(await batchFromText(reader.lines[0]!, undefined)).toMatchObject({ problem: expect.stringMatching(/encoded batch, and this transport has no codec/) });
    reader.close();
  });

  it("does not keep its process alive: a worker process ends by itself with a reader still connected", async () => {
    // A script of its own: it can only end by itself if neither the endpoint nor the reader's connection holds it.
    const script = `
      import { directStreamTransport } from "./src/index.ts";
      const transport = directStreamTransport({ host: "127.0.0.1" });
      await transport.listen();
      transport.verifyWith({ workflow: { getHandle: () => ({ describe: async () => ({ memo: { ${JSON.stringify(STREAM_KEY_MEMO)}: ${JSON.stringify(KEY)} } }) }) } });
      console.log(JSON.stringify(transport.announcement));
      // The test says "go" once its reader is connected.
      const { createInterface } = await import("node:readline");
      const input = createInterface({ input: process.stdin });
      await new Promise((resolve) => input.once("line", resolve));
      input.close();
      await transport.publish("t", { after: 1, entries: [{ seq: 2, type: "text-delta", messageId: "m1", text: "bye" }] }, { runId: "${RUN}" });
      console.log("done");
    `;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: root, stdio: ["pipe", "pipe", "inherit"] });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    try {
      const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
      const at = JSON.parse((await lines.next()).value as string) as EndpointAnnouncement;
      const reader = await get(at);
      expect(reader.status).toBe(200);
      child.stdin!.end("go\n");
      expect((await lines.next()).value).toBe("done");
      expect(await exited).toBe(0);
      await reader.linesReached(1);
      expect(JSON.parse(reader.lines[0]!).entries[0].text).toBe("bye");
      reader.close();
    } finally {
      child.kill("SIGKILL");
    }
  }, 60_000);

  it("listens once however often it is asked, and announces the advertised origin, its certificate's pin and a gate", async () => {
    const transport = directStreamTransport({ host: "127.0.0.1", advertise: "https://worker-3.internal:7400" });
    open.push(transport);
    const [a, b] = await Promise.all([transport.listen(), transport.listen()]);
    expect(a).toBe("https://worker-3.internal:7400");
    expect(b).toBe(a);
    expect(transport.url).toBe(a);
    expect(transport.announcement).toEqual({ url: a, pin: expect.stringMatching(/^[\w-]{43}$/), gate: expect.stringMatching(/^[\w-]{43}$/) });
  });

  it("binds a private interface by default (never every interface, never a public address), where readers reach it", async () => {
    const transport = directStreamTransport();
    open.push(transport);
    const url = new URL(await transport.listen());
    const host = url.hostname.replace(/^\[|\]$/g, "");
    expect(url.protocol).toBe("https:");
    expect(host).toBe(defaultHost());
    expect(isPrivateAddress(host) || host === "127.0.0.1").toBe(true);
    // And a reader reaches it there.
    transport.verifyWith(temporal());
    const reader = await get(transport.announcement!);
    expect(reader.status).toBe(200);
    reader.close();
  });
});

describe("the workers a reader finds", () => {
  it("are those whose beacon polled lately: a stopped worker's entry, still listed by Temporal, is passed by", async () => {
    const at = (ago: number) => ({ seconds: Math.floor((Date.now() - ago) / 1000), nanos: 0 });
    const announce = (url: string) => beaconIdentity({ url, pin: randomKey(), gate: randomKey() });
    const client = {
      options: { namespace: "default" },
      workflowService: {
        describeTaskQueue: async () => ({
          pollers: [
            { identity: announce("https://10.0.0.1:7400"), lastAccessTime: at(2_000) },
            { identity: announce("https://10.0.0.2:7400"), lastAccessTime: at(BEACON_FRESH_MS + 5_000) },
            { identity: "1@host durable-agents-stream=http://10.0.0.3:7400", lastAccessTime: at(0) },
            { identity: "an ordinary worker", lastAccessTime: at(0) },
          ],
        }),
      },
    } as unknown as Client;
    const found = await new WorkerDirectory(client).endpoints("q");
    expect(found.map((e) => e.url)).toEqual(["https://10.0.0.1:7400"]);
  });
});

describe("directStreamTransport options", () => {
  it.each([
    [null, /options must be an object/],
    [{ host: "" }, /`host` must be/],
    [{ port: -1 }, /`port` must be a whole number from 0/],
    [{ port: 70_000 }, /`port` must be/],
    [{ port: 1.5 }, /`port` must be/],
    [{ advertise: "worker:7400" }, /`advertise` must be an https/],
    [{ advertise: "ftp://worker:7400" }, /`advertise` must be an https/],
    [{ advertise: "http://worker:7400" }, /speaks TLS itself/],
    [{ advertise: "https://worker:7400/stream" }, /no path/],
    [{ advertise: "https://user:pw@worker:7400" }, /`advertise` must be/],
    [{ codec: { encode: 1 } }, /`codec` must be a payload codec/],
    [{ maxConnections: 0 }, /`maxConnections` must be a positive/],
    [{ maxMessageBytes: -5 }, /`maxMessageBytes` must be a positive/],
    [{ onError: "log" }, /`onError` must be a function/],
  ])("refuses %j with AI1080 and what to pass instead", (options, problem) => {
    let thrown: unknown;
    try {
      directStreamTransport(options as never);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(StreamTransportInvalidError);
    expect((thrown as StreamTransportInvalidError).code).toBe("AI1080");
    expect((thrown as Error).message).toMatch(problem);
  });

  it("on a worker of your own, refuses to configure it before its endpoint listens (createAgentWorker starts it for you), and leaves its identity alone", async () => {
    const transport = directStreamTransport({ host: "127.0.0.1" });
    open.push(transport);
    const plugin = durableAgentsPlugin({ agents: [], model: openaiModel({ baseURL: "http://127.0.0.1:9/v1", apiKey: "unused" }), threads: { stream: { transport } } });
    expect(() => plugin.configureWorker({ taskQueue: "q" } as never)).toThrow(/await transport.listen\(\) before Worker.create/);
    await transport.listen();
    // Announced by a beacon poll while the worker runs, not in the worker's identity (which every history event carries).
    const configured = plugin.configureWorker({ taskQueue: "q", identity: "me@host" } as never);
    expect(configured.identity).toBe("me@host");
  });
});
