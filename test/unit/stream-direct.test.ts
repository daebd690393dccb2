/**
 * The worker's side of the direct stream transport, without Temporal: its endpoint serves a
 * thread's batches to a reader that names the thread's run, refuses what is not such a
 * request with a status and a reason, and its options are checked before anything listens.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { request } from "node:http";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { aesGcmCodec, directStreamTransport, StreamTransportInvalidError, type DirectStreamTransport, type StreamBatch } from "../../src/index.js";
import { batchFromText } from "../../src/stream/batch-text.js";
import { durableAgentsPlugin, openaiModel } from "../../src/worker.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const RUN = "6f1c1f7e-1d5b-4b43-9a59-3f6e8f6d2a10";
const batch = (seq: number): StreamBatch => ({ after: 1, entries: [{ seq, type: "text-delta", messageId: "m1", text: `piece ${seq}` }] });

const open: DirectStreamTransport[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});

async function listening(options: Parameters<typeof directStreamTransport>[0] = {}): Promise<{ transport: DirectStreamTransport; url: string }> {
  const transport = directStreamTransport({ host: "127.0.0.1", ...options });
  open.push(transport);
  return { transport, url: await transport.listen() };
}

interface Held {
  status: number;
  lines: string[];
  /** Resolves once `count` lines have come. */
  linesReached(count: number): Promise<void>;
  body: Promise<string>;
  close(): void;
}

/** A GET held open like a reader's: resolves at the response's head; its lines keep coming. */
function get(url: string, path: string, method = "GET"): Promise<Held> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { method });
    req.on("error", reject);
    req.on("response", (res) => {
      const lines: string[] = [];
      const waiting = new Set<() => void>();
      let text = "";
      const body = new Promise<string>((done) => {
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
          lines.push(...chunk.split("\n").filter(Boolean));
          for (const check of [...waiting]) check();
        });
        res.on("end", () => done(text));
        res.on("close", () => done(text));
      });
      const linesReached = (count: number) =>
        new Promise<void>((reached) => {
          const check = () => {
            if (lines.length < count) return;
            waiting.delete(check);
            reached();
          };
          waiting.add(check);
          check();
        });
      resolve({ status: res.statusCode!, lines, linesReached, body, close: () => req.destroy() });
    });
    req.end();
  });
}

/** The endpoint counts a reader out when its side of the connection closes: a status the test waits for. */
const connectionsReach = (transport: DirectStreamTransport, count: number) => vi.waitFor(() => expect(transport.connections).toBe(count));

describe("a worker's direct stream endpoint", () => {
  it("writes each batch published for the thread's run to its readers, one line each, and nothing of other runs or threads", async () => {
    const { transport, url } = await listening();
    const reader = await get(url, `/v1/threads/${encodeURIComponent("thread/one ü")}?run=${RUN}`);
    const otherRun = await get(url, `/v1/threads/${encodeURIComponent("thread/one ü")}?run=someone-else`);
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

  it("gives a reader that connects mid-answer the answer's deltas so far first, of its run only, and nothing of an answer that ended", async () => {
    const { transport, url } = await listening();
    const thread = "mid-answer";
    // Published with nobody connected: the answer has begun before the reader arrives.
    await transport.publish(thread, batch(2), { runId: RUN });
    await transport.publish(thread, batch(3), { runId: "an-older-run" });
    await transport.publish(thread, batch(4), { runId: RUN });
    const late = await get(url, `/v1/threads/${thread}?run=${RUN}`);
    await late.linesReached(2);
    await transport.publish(thread, batch(5), { runId: RUN });
    await late.linesReached(3);
    expect(late.lines.map((l) => JSON.parse(l))).toEqual([batch(2), batch(4), batch(5)]);

    // The answer's message (a durable entry) ends it: a reader after that gets only what follows.
    const message: StreamBatch = { after: 1, entries: [{ seq: 6, type: "status", status: "completed", previousStatus: "streaming", at: new Date(0).toISOString() }] };
    await transport.publish(thread, message, { runId: RUN });
    await late.linesReached(4);
    const after = await get(url, `/v1/threads/${thread}?run=${RUN}`);
    await transport.publish(thread, batch(9), { runId: RUN });
    await after.linesReached(1);
    expect(after.lines.map((l) => JSON.parse(l))).toEqual([batch(9)]);

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

  it("refuses what is not a reader's request with a status and what to ask instead, and keeps nobody connected", async () => {
    const { transport, url } = await listening();
    const cases: Array<[string, string, number, RegExp]> = [
      ["POST", `/v1/threads/t?run=${RUN}`, 405, /only GET/],
      ["GET", "/", 404, /GET \/v1\/threads/],
      ["GET", `/v2/threads/t?run=${RUN}`, 404, /not found/],
      ["GET", `/v1/threads/%E0%A4%A?run=${RUN}`, 400, /URI encoding/],
      ["GET", `/v1/threads/?run=${RUN}`, 400, /thread id/],
      ["GET", `/v1/threads/${"x".repeat(1_001)}?run=${RUN}`, 400, /1 to 1000/],
      ["GET", "/v1/threads/t", 400, /run must be/],
      ["GET", `/v1/threads/t?run=${"r".repeat(129)}`, 400, /run must be/],
    ];
    for (const [method, path, status, reason] of cases) {
      const res = await get(url, path, method);
      expect({ method, path: path.slice(0, 40), status: res.status }).toEqual({ method, path: path.slice(0, 40), status });
      expect(await res.body).toMatch(reason);
    }
    expect(transport.connections).toBe(0);
  });

  it("refuses a reader past maxConnections (it reads the thread instead) and takes one again once a place is free", async () => {
    const { transport, url } = await listening({ maxConnections: 1 });
    const first = await get(url, `/v1/threads/t?run=${RUN}`);
    const second = await get(url, `/v1/threads/t?run=${RUN}`);
    expect([first.status, second.status]).toEqual([200, 503]);
    expect(await second.body).toMatch(/too many readers/);
    first.close();
    await connectionsReach(transport, 0);
    const third = await get(url, `/v1/threads/t?run=${RUN}`);
    expect(third.status).toBe(200);
    third.close();
  });

  it("will not send a batch over maxMessageBytes (readers would drop it): the publish rejects, and readers get nothing", async () => {
    const { transport, url } = await listening({ maxMessageBytes: 200 });
    const reader = await get(url, `/v1/threads/t?run=${RUN}`);
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
    const { transport, url } = await listening({ codec });
    const reader = await get(url, `/v1/threads/t?run=${RUN}`);
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
      console.log(await transport.listen());
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
      const url = (await lines.next()).value as string;
      const reader = await get(url, `/v1/threads/t?run=${RUN}`);
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

  it("listens once however often it is asked, and announces the advertised origin", async () => {
    const transport = directStreamTransport({ host: "127.0.0.1", advertise: "https://worker-3.internal:7400" });
    open.push(transport);
    const [a, b] = await Promise.all([transport.listen(), transport.listen()]);
    expect(a).toBe("https://worker-3.internal:7400");
    expect(b).toBe(a);
    expect(transport.url).toBe(a);
  });
});

describe("directStreamTransport options", () => {
  it.each([
    [null, /options must be an object/],
    [{ host: "" }, /`host` must be/],
    [{ port: -1 }, /`port` must be a whole number from 0/],
    [{ port: 70_000 }, /`port` must be/],
    [{ port: 1.5 }, /`port` must be/],
    [{ advertise: "worker:7400" }, /`advertise` must be an http/],
    [{ advertise: "ftp://worker:7400" }, /`advertise` must be an http/],
    [{ advertise: "http://worker:7400/stream" }, /no path/],
    [{ advertise: "http://user:pw@worker:7400" }, /`advertise` must be/],
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
