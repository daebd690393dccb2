/**
 * The Redis stream transport against a real redis-server (durable-agents/testing's
 * startRedis; no Temporal): batches between transports of different processes, one
 * subscriber connection for every thread, what Redis sees with a codec, hostile messages
 * on a channel, and a publish that never hangs on a broken Redis.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createClient } from "redis";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { aesGcmCodec, ErrorCode, StreamTransportInvalidError, type StreamBatch, type StreamTransport } from "../../src/index.js";
import { redisStreamTransport, type RedisStreamTransportOptions } from "../../src/redis.js";
import { startRedis, type RedisServerHandle } from "../../src/testing/index.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const PREFIX = "durable-agents:stream:";

let redis: RedisServerHandle;
/** A third client, as an operator's redis-cli: it sees what is on the server. */
let raw: ReturnType<typeof createClient>;
const opened: StreamTransport[] = [];

beforeAll(async () => {
  redis = await startRedis();
  raw = createClient({ url: redis.url });
  raw.on("error", () => {});
  await raw.connect();
}, 300_000);

afterEach(async () => {
  await Promise.all(opened.splice(0).map((t) => t.close()));
});

afterAll(async () => {
  await raw?.close();
  await redis?.stop();
});

function transport(options: RedisStreamTransportOptions = {}) {
  const made = redisStreamTransport(options.client ? options : { url: redis.url, ...options });
  opened.push(made);
  return made;
}

let threads = 0;
const threadId = () => `thread-${++threads}`;

const batch = (after: number, ...texts: string[]): StreamBatch => ({
  after,
  entries: texts.map((text, i) => ({ seq: after + i + 1, type: "text-delta", messageId: "m1", text })),
});

/** A listener that keeps what it hears; `until(n)` resolves once it heard n things. */
function collector<T = StreamBatch>() {
  const batches: T[] = [];
  const waiting: Array<{ n: number; resolve: () => void }> = [];
  return {
    batches,
    listener: (b: T) => {
      batches.push(b);
      for (const w of waiting.filter((w) => batches.length >= w.n)) w.resolve();
    },
    until: (n: number) => (batches.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ n, resolve }))),
  };
}

const numsub = async (channel: string): Promise<number> => {
  const reply = (await raw.sendCommand(["PUBSUB", "NUMSUB", channel])) as [string, number];
  return Number(reply[1]);
};

describe("redisStreamTransport", () => {
  it("carries batches between two transports (two processes), in order, both ways", async () => {
    const worker = transport();

    const frontDoor = transport();
    expect(frontDoor.local).toBe(false);
    const id = threadId();
    const heard = collector();
    const back = collector();
    await frontDoor.subscribe(id, heard.listener);
    await worker.subscribe(id, back.listener);
    // A listener that throws costs the others nothing.
    await frontDoor.subscribe(id, () => {
      throw new Error("a reader's bug");
    });

    const sent = Array.from({ length: 50 }, (_, i) => batch(i, `piece ${i} `));
    for (const b of sent) await worker.publish(id, b);
    await frontDoor.publish(id, batch(50, "from the front door"));
    await heard.until(51);
    await back.until(51);
    expect(heard.batches).toEqual([...sent, batch(50, "from the front door")]);
    expect(back.batches).toEqual(heard.batches);
  });

  it("keeps nothing: a subscriber hears what is published after it subscribed", async () => {
    const worker = transport();
    const reader = transport();
    const id = threadId();
    await worker.publish(id, batch(0, "before anyone listened"));
    const heard = collector();
    await reader.subscribe(id, heard.listener);
    await worker.publish(id, batch(1, "after"));
    await heard.until(1);
    expect(heard.batches).toEqual([batch(1, "after")]);
  });

  it("serves many threads on one subscriber connection, each listener hearing its own thread only", async () => {
    const worker = transport();
    const reader = transport();
    const ids = Array.from({ length: 5 }, threadId);
    const heard = ids.map(() => collector());
    await Promise.all(ids.map((id, i) => reader.subscribe(id, heard[i]!.listener)));

    for (const id of ids) expect(await numsub(PREFIX + id)).toBe(1);
    const clients = String(await raw.sendCommand(["CLIENT", "LIST"])).split("\n");
    const subscribers = clients.filter((line) => / name=durable-agents-stream-subscriber /.test(line) && / sub=5 /.test(line));
    expect(subscribers).toHaveLength(1);

    await Promise.all(ids.map((id, i) => worker.publish(id, batch(0, `for ${i}`))));
    await Promise.all(heard.map((h) => h.until(1)));
    heard.forEach((h, i) => expect(h.batches).toEqual([batch(0, `for ${i}`)]));
  });

  it("stops delivering to an unsubscribed listener; the thread's last one leaving UNSUBSCRIBEs", async () => {
    const worker = transport();
    const reader = transport();
    const id = threadId();
    const [first, second] = [collector(), collector()];
    const subs = [await reader.subscribe(id, first.listener), await reader.subscribe(id, second.listener)];
    expect(await numsub(PREFIX + id)).toBe(1);

    await worker.publish(id, batch(0, "both"));
    await Promise.all([first.until(1), second.until(1)]);
    await subs[0]!.unsubscribe();
    await subs[0]!.unsubscribe(); // idempotent
    expect(await numsub(PREFIX + id)).toBe(1);
    await worker.publish(id, batch(1, "second only"));
    await second.until(2);
    expect(first.batches).toEqual([batch(0, "both")]);

    await subs[1]!.unsubscribe();
    expect(await numsub(PREFIX + id)).toBe(0);
    // Subscribing again after the channel was dropped works, as does a subscribe that races
    // an unsubscribe of the same thread.
    const again = collector();
    const leaving = await reader.subscribe(id, () => {});
    const [, sub] = await Promise.all([leaving.unsubscribe(), reader.subscribe(id, again.listener)]);
    expect(await numsub(PREFIX + id)).toBe(1);
    await worker.publish(id, batch(2, "again"));
    await again.until(1);
    expect(again.batches).toEqual([batch(2, "again")]);
    await sub.unsubscribe();
    expect(await numsub(PREFIX + id)).toBe(0);
  });

  it("comes back after its subscriber connection drops: what is published once it resubscribed arrives", async () => {
    const worker = transport();
    const errors = collector<Error>();
    const reader = transport({ onError: errors.listener });
    const id = threadId();
    const heard = collector();
    await reader.subscribe(id, heard.listener);
    await worker.publish(id, batch(0, "before"));
    await heard.until(1);

    await raw.sendCommand(["CLIENT", "KILL", "TYPE", "pubsub"]);
    await errors.until(1);
    expect(errors.batches[0]!.message).toMatch(/subscriber connection failed/);
    // node-redis reconnects and sends SUBSCRIBE again by itself; what was published in
    // between is gone (the reader would read it by query), what comes after arrives.
    await vi.waitFor(async () => expect(await numsub(PREFIX + id)).toBe(1), { timeout: 20_000, interval: 20 });
    await worker.publish(id, batch(1, "after"));
    await heard.until(2);
    expect(heard.batches).toEqual([batch(0, "before"), batch(1, "after")]);
  }, 30_000);

  it("with a codec, keeps the entries' text off Redis and gives it back to the subscriber", async () => {
    const codec = aesGcmCodec({ keys: { k1: randomBytes(32) }, current: "k1" });
    const worker = transport({ codec });
    const readerErrors = collector<Error>();
    const reader = transport({ codec, onError: readerErrors.listener });
    const plainErrors = collector<Error>();
    const plain = transport({ onError: plainErrors.listener });
    const id = threadId();
    const heard = collector();
    const plainHeard = collector();
    await reader.subscribe(id, heard.listener);
    await plain.subscribe(id, plainHeard.listener);
    const onRedis: Buffer[] = [];
    const spy = raw.duplicate();
    spy.on("error", () => {});
    await spy.connect();
    try {
      await spy.subscribe(PREFIX + id, (message) => void onRedis.push(message), true);
      const secret = batch(0, "The launch code is swordfish-1234");
      await worker.publish(id, secret);
      await heard.until(1);
      expect(heard.batches).toEqual([secret]);
      expect(onRedis).toHaveLength(1);
      expect(onRedis[0]!.includes("swordfish")).toBe(false);
      expect(onRedis[0]!.includes("launch code")).toBe(false);
    } finally {
      await spy.close();
    }
    // A transport without the codec drops what it cannot read, and says why; one with the
    // codec drops a plain batch.
    await plainErrors.until(1);
    expect(plainErrors.batches[0]!.message).toMatch(/has no codec/);
    await plain.publish(id, batch(1, "in the clear"));
    await Promise.all([plainHeard.until(1), readerErrors.until(1)]);
    expect(plainHeard.batches).toEqual([batch(1, "in the clear")]);
    expect(readerErrors.batches[0]!.message).toMatch(/does the publisher have this transport's codec/);
    expect(heard.batches).toHaveLength(1);
    expect([plain.droppedMessages, reader.droppedMessages]).toEqual([1, 1]);
  });

  it("drops garbage, foreign and oversized messages on a channel, reports each once, and delivers the next batch", async () => {
    const codec = aesGcmCodec({ keys: { k1: randomBytes(32) }, current: "k1" });
    const errors: Error[] = [];
    const reader = transport({ onError: (err) => errors.push(err) });
    const encrypted = transport({ codec, onError: (err) => errors.push(err) });
    const worker = transport();
    const secureWorker = transport({ codec });
    const [id, secureId] = [threadId(), threadId()];
    const heard = collector();
    const secureHeard = collector();
    // Two listeners: a dropped message is still reported once, not once per listener.
    await reader.subscribe(id, heard.listener);
    await reader.subscribe(id, () => {});
    await encrypted.subscribe(secureId, secureHeard.listener);

    const hostile: Array<string | Buffer> = [
      "not json {",
      "null",
      JSON.stringify({ after: -1, entries: [] }),
      JSON.stringify({ after: 0, entries: [{ seq: 1, type: "text-delta", messageId: 7, text: "wrong type" }] }),
      JSON.stringify({ after: 0, entries: [{ seq: 1, type: "no-such-entry" }] }),
      JSON.stringify({ after: 0, entries: "nope" }),
      Buffer.alloc(5 * 1024 * 1024, "a"),
      Buffer.from([0xff, 0xfe, 0x00, 0x01]),
    ];
    for (const message of hostile) await raw.publish(PREFIX + id, message);
    await worker.publish(id, batch(0, "still fine"));
    await heard.until(1);
    expect(heard.batches).toEqual([batch(0, "still fine")]);
    expect(reader.droppedMessages).toBe(hostile.length);
    expect(errors).toHaveLength(hostile.length);
    expect(errors.find((e) => /over maxMessageBytes/.test(e.message))).toBeDefined();

    const secureHostile = [
      JSON.stringify(batch(0, "plain where a codec is expected")),
      JSON.stringify({ payload: "x" }),
      JSON.stringify({ payload: { metadata: { encoding: "!!" }, data: "AAAA" } }),
      JSON.stringify({ payload: { metadata: { encoding: Buffer.from("binary/encrypted").toString("base64") }, data: Buffer.alloc(40).toString("base64") } }),
    ];
    for (const message of secureHostile) await raw.publish(PREFIX + secureId, message);
    await secureWorker.publish(secureId, batch(0, "sealed"));
    await secureHeard.until(1);
    expect(secureHeard.batches).toEqual([batch(0, "sealed")]);
    expect(encrypted.droppedMessages).toBe(secureHostile.length);
    expect(errors).toHaveLength(hostile.length + secureHostile.length);
  });

  it("refuses a batch too big for subscribers instead of sending it", async () => {
    const worker = transport({ maxMessageBytes: 1024 });
    await expect(worker.publish(threadId(), batch(0, "x".repeat(2048)))).rejects.toThrow(/over maxMessageBytes/);
  });

  it("rejects a publish against a Redis that stopped, one never reached, and one that does not answer, rather than hanging", async () => {
    const own = await startRedis();
    const worker = transport({ url: own.url });
    const id = threadId();
    await worker.publish(id, batch(0, "while it runs"));
    await own.stop();
    await expect(worker.publish(id, batch(1, "after it stopped"))).rejects.toThrow();

    // Never connected: the connect keeps trying in the background, the publish gives up.
    const never = transport({ url: own.url, timeout: 300 });
    await expect(never.publish(id, batch(0, "nobody there"))).rejects.toThrow(/took over 300 ms/);
    await expect(never.subscribe(id, () => {})).rejects.toThrow(/took over 300 ms/);

    // A server that accepts the connection and never says a word.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = silent.address() as { port: number };
      const mute = transport({ url: `redis://127.0.0.1:${port}`, timeout: "300ms" });
      await expect(mute.publish(id, batch(0, "hello?"))).rejects.toThrow(/took over 300 ms/);
      await mute.close();
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 30_000);

  it("refuses options it cannot use with AI1080, before connecting anything", () => {
    const client = createClient({ url: redis.url });
    const bad: unknown[] = [
      { url: redis.url, client },
      { channelPrefix: 42 },
      { channelPrefix: "" },
      { url: "http://localhost:6379" },
      { url: "not a url" },
      { url: 6379 },
      { client: { connect() {} } },
      { codec: { encode: "yes" } },
      { onError: "log" },
      { timeout: 0 },
      { timeout: Number.POSITIVE_INFINITY },
      { maxMessageBytes: 1.5 },
      null,
    ];
    for (const options of bad) {
      let thrown: unknown;
      try {
        redisStreamTransport(options as RedisStreamTransportOptions);
      } catch (err) {
        thrown = err;
      }
      expect(StreamTransportInvalidError.isInstance(thrown), JSON.stringify(options)).toBe(true);
      expect((thrown as StreamTransportInvalidError).code).toBe(ErrorCode.StreamTransportInvalid);
    }
    expect(client.isOpen).toBe(false);
  });

  it("publishes through a client of the caller's and subscribes on a duplicate of it, leaving the caller's client open", async () => {
    const mine = createClient({ url: redis.url });
    mine.on("error", () => {});
    await mine.connect();
    try {
      const shared = transport({ client: mine });
      const reader = transport();
      const id = threadId();
      const heard = collector();
      const back = collector();
      await reader.subscribe(id, heard.listener);
      await shared.subscribe(id, back.listener);
      await shared.publish(id, batch(0, "through your client"));
      await Promise.all([heard.until(1), back.until(1)]);
      expect(heard.batches).toEqual([batch(0, "through your client")]);
      await shared.close();
      expect(mine.isOpen).toBe(true);
      await expect(shared.publish(id, batch(1, "closed"))).rejects.toThrow(/after close/);
    } finally {
      await mine.close();
    }
  });

  it("leaves nothing that keeps a process alive: after the last unsubscribe, and after close()", async () => {
    // A script of its own: it can only end by itself if no connection or timer is left.
    const script = `
      import { redisStreamTransport } from "./src/redis.ts";
      const [url, mode] = process.argv.slice(-2);
      const transport = redisStreamTransport({ url });
      let heard;
      const got = new Promise((resolve) => (heard = resolve));
      const sub = await transport.subscribe("t", heard);
      await transport.publish("t", { after: 0, entries: [] });
      await got;
      if (mode === "unsubscribe") await sub.unsubscribe();
      else await transport.close();
      console.log("done");
    `;
    const run = (mode: string) =>
      promisify(execFile)(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script, redis.url, mode], { cwd: root, timeout: 60_000 });
    const [unsubscribed, closed] = await Promise.all([run("unsubscribe"), run("close")]);
    expect(unsubscribed.stdout.trim()).toBe("done");
    expect(closed.stdout.trim()).toBe("done");
  }, 120_000);
});
