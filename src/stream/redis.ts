import type { Duration, PayloadCodec } from "@temporalio/common";
import { durationMs } from "../core/duration.js";
import { createClient, type RedisClientType } from "redis";
import { StreamTransportInvalidError } from "../core/errors/setup.js";
import { deliverBatch } from "./deliver.js";
import { batchFromText, batchToText, DEFAULT_MAX_MESSAGE_BYTES, sharedOptionProblem } from "./batch-text.js";
import type { StreamBatch, StreamSubscription, StreamTransport } from "./transport.js";

/** A node-redis client (`createClient()` from `redis`), whatever its modules, scripts or RESP version. */
export type RedisClient = RedisClientType<any, any, any, any, any>;

/** Where `redisStreamTransport` finds Redis, and how it writes batches there. */
export interface RedisStreamTransportOptions {
  /**
   * The server, as node-redis reads it: `redis://[[user]:password@]host[:port][/db]`, or
   * `rediss://…` for TLS. Default `redis://localhost:6379`. Not with `client`.
   */
  url?: string;
  /**
   * A node-redis client of your own, already connected (and with an `error` listener, as
   * node-redis asks of every client). The transport publishes through it and subscribes
   * through one `duplicate()` of it that it opens and closes itself; it never closes yours.
   * Not with `url`.
   */
  client?: RedisClient;
  /** Each thread's batches go to the channel `channelPrefix + threadId`. Default `"durable-agents:stream:"`. */
  channelPrefix?: string;
  /**
   * A payload codec (e.g. `aesGcmCodec`, the one the worker's data converter has) that every
   * batch goes through before it reaches Redis, so that message text is not on Redis, or on
   * the wire to it, in the clear. Give every transport of the deployment the same codec: a
   * subscriber drops what it cannot decode.
   */
  codec?: PayloadCodec;
  /**
   * Told what went wrong out of sight of any caller: once per message the subscriber dropped
   * (unreadable, not a batch, over `maxMessageBytes`, refused by the codec), and each time a
   * connection fails. Never called for a publish or subscribe that rejects (the caller has
   * that error). Default: nothing is told; `droppedMessages` still counts. It may be called
   * often when a connection is down or someone floods a channel: throttle it if it logs.
   */
  onError?: (err: Error) => void;
  /**
   * How long a publish, a subscribe or an unsubscribe may take before it rejects:
   * connecting, the codec and the command's answer together. Default `"2s"`: a publish comes
   * from the model activity, which must not wait on a broken Redis.
   */
  timeout?: Duration;
  /**
   * The largest message the transport publishes or accepts, in bytes (after the codec).
   * Default 4 MiB, well above what one batch holds (a thread's messages are each at most
   * `MAX_PAYLOAD_BYTES`); a bigger one from the channel is dropped unread.
   */
  maxMessageBytes?: number;
}

/** What `redisStreamTransport` returns: a {@link StreamTransport} that counts what it drops. */
export interface RedisStreamTransport extends StreamTransport {
  readonly local: false;
  /** Messages from a channel that reached no listener because they were unreadable (see `onError`). */
  readonly droppedMessages: number;
}

const DEFAULT_PREFIX = "durable-agents:stream:";
const DEFAULT_TIMEOUT_MS = 2_000;
const NAME = "redisStreamTransport";


/**
 * A stream transport on Redis Pub/Sub, for deployments whose readers (an HTTP front door, a
 * service holding `ThreadsClient`) run in other processes than the workers: each thread's
 * batches are published to its own channel, and a process subscribes to the channels of the
 * threads it has readers for.
 *
 * Pub/Sub keeps nothing, and nothing needs keeping: batches are previews of what the thread's
 * workflow stores durably, and a reader that missed one (it subscribed late, a connection
 * dropped, Redis restarted) sees the gap in the next batch's `after` and reads the thread
 * once by query. So there are no streams or keys to trim, and one connection serves every
 * thread: a transport opens one connection to publish (when it first publishes; it does not
 * keep the process alive) and one to subscribe, shared by all its subscriptions, which sends
 * SUBSCRIBE when a thread gets its first listener, UNSUBSCRIBE when its last one leaves, and
 * closes when no thread has listeners. `close()` releases both.
 *
 * Batches travel as JSON; with a `codec`, as a Temporal payload the codec encoded, so an
 * encrypting codec keeps message text off Redis. A message a subscriber cannot read is
 * dropped (counted, told to `onError`), never passed on. Publishing never waits longer than
 * `timeout`: against a Redis that is down it rejects at once (commands are not queued
 * while disconnected), against one that does not answer after `timeout`.
 *
 * Needs the `redis` package (node-redis 5 or 6; an optional peer dependency of durable-agents).
 * Options it cannot use throw AI1080 before anything connects.
 *
 * @example
 * ```ts
 * import { redisStreamTransport } from "durable-agents/redis";
 *
 * const transport = redisStreamTransport({ url: process.env.REDIS_URL });
 * // Give the same transport to the worker and to the clients, in each process.
 * ```
 */
export function redisStreamTransport(options: RedisStreamTransportOptions = {}): RedisStreamTransport {
  const settings = checkOptions(options);
  const { prefix, codec, timeoutMs, maxMessageBytes } = settings;
  let dropped = 0;
  let closed = false;

  const report = (err: Error): void => {
    try {
      options.onError?.(err);
    } catch {
      // The hook's own failure has nowhere better to go.
    }
  };
  const drop = (channel: string, problem: string, cause?: unknown): void => {
    dropped++;
    report(new Error(`${NAME}: dropped a message on ${channel}: ${problem}`, cause === undefined ? undefined : { cause }));
  };

  /** Runs `op`, rejecting when it takes over `timeoutMs`; its signal tells node-redis to drop a command not sent yet. */
  const bounded = async <T>(what: string, op: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        abort.abort();
        reject(new Error(`${NAME}: ${what} took over ${timeoutMs} ms: is Redis reachable?`));
      }, timeoutMs);
    });
    const done = op(abort.signal).catch((err: unknown) => {
      throw new Error(`${NAME}: ${what} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    });
    try {
      return await Promise.race([done, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  };

  // Connections are made on first use, in the background of whichever call needs them: a
  // call that gives up (timeout) leaves the connect going, and the next call waits on it.
  const own = (role: "publisher" | "subscriber"): RedisClient => {
    // Named, so that CLIENT LIST on the server tells the transport's connections apart.
    const name = `durable-agents-stream-${role}`;
    // While a connection is down, commands fail at once instead of queueing: a publish is a
    // preview and the reader has the transcript. A duplicate keeps the socket options of the
    // client it copies (where it connects, TLS): only the queueing changes.
    const client = (
      settings.client
        ? settings.client.duplicate({ disableOfflineQueue: true, name })
        : createClient({ disableOfflineQueue: true, name, socket: { connectTimeout: timeoutMs }, ...(settings.url ? { url: settings.url } : {}) })
    ) as RedisClient;
    // node-redis emits "error" on every failed (re)connect and throws it when nobody listens.
    client.on("error", (err: Error) => report(new Error(`${NAME}: the ${role} connection failed: ${err.message}`, { cause: err })));
    return client;
  };
  const connecting = (client: RedisClient): Promise<RedisClient> => {
    const connected = client.connect().then(() => client);
    connected.catch(() => undefined);
    return connected;
  };

  let publisher: { client: RedisClient; ready: Promise<RedisClient> } | undefined;
  const publisherClient = (): Promise<RedisClient> => {
    if (settings.client) {
      if (!settings.client.isOpen) return Promise.reject(new Error(`${NAME}: the client it was given is not connected: call client.connect() first`));
      return Promise.resolve(settings.client);
    }
    if (!publisher) {
      const client = own("publisher");
      // An idle publisher must not keep a finished process alive; close() releases it anyway.
      client.unref();
      const current = (publisher = { client, ready: connecting(client) });
      // A connect that failed for good (a reconnect strategy that gave up) is tried afresh.
      current.ready.catch(() => {
        if (publisher === current) publisher = undefined;
      });
    }
    return publisher.ready;
  };

  let subscriber: { client: RedisClient; ready: Promise<RedisClient> } | undefined;
  const subscriberClient = (): Promise<RedisClient> => {
    if (!subscriber) {
      const client = own("subscriber");
      subscriber = { client, ready: connecting(client) };
    }
    return subscriber.ready;
  };
  const closeSubscriber = (): void => {
    const current = subscriber;
    subscriber = undefined;
    // destroy(), not close(): nothing it was sent is worth waiting for, and a client still
    // connecting (Redis down) stops trying.
    if (current?.client.isOpen) current.client.destroy();
  };

  interface Channel {
    name: string;
    listeners: Set<{ listener: (batch: StreamBatch) => void }>;
    subscribed: boolean;
    /** Decoding is async with a codec: each message waits for the one before, so order holds. */
    delivery: Promise<void>;
    onMessage: (message: Buffer) => void;
  }
  const channels = new Map<string, Channel>();

  const deliver = async (channel: Channel, message: Buffer): Promise<void> => {
    const batch = await decode(channel.name, message);
    if (batch) deliverBatch(channel.listeners, batch);
  };
  const decode = async (name: string, message: Buffer): Promise<StreamBatch | undefined> => {
    if (message.length > maxMessageBytes) return void drop(name, `${message.length} bytes, over maxMessageBytes (${maxMessageBytes})`);
    const read = await batchFromText(message.toString("utf8"), codec);
    if ("problem" in read) return void drop(name, read.problem, read.cause);
    return read.batch;
  };

  // Subscriptions change one at a time, so that SUBSCRIBE, UNSUBSCRIBE and the subscriber
  // connection's open and close never cross, whatever order callers come in.
  let changes: Promise<unknown> = Promise.resolve();
  const serially = <T>(change: () => Promise<T>): Promise<T> => {
    const run = changes.then(change);
    changes = run.catch(() => undefined);
    return run;
  };
  /** Brings Redis in line with `channel.listeners`, then forgets what nobody listens to. */
  const reconcile = async (threadId: string, channel: Channel): Promise<void> => {
    try {
      const wanted = channel.listeners.size > 0 && !closed;
      if (wanted && !channel.subscribed) {
        const client = await bounded("subscribe", () => subscriberClient());
        // From here node-redis holds the listener, whether or not Redis answers in time: a
        // SUBSCRIBE that timed out is undone by the UNSUBSCRIBE queued behind it.
        channel.subscribed = true;
        await bounded("subscribe", () => client.subscribe(channel.name, channel.onMessage, true));
      } else if (!wanted && channel.subscribed) {
        channel.subscribed = false;
        const client = subscriber?.client;
        // One that fails leaves nothing behind once the connection closes (below, when no
        // thread has listeners left; node-redis resubscribes only what still has a listener).
        if (client?.isOpen) await bounded("unsubscribe", () => client.unsubscribe(channel.name, channel.onMessage, true)).catch(report);
      }
    } finally {
      if (channel.listeners.size === 0 && !channel.subscribed && channels.get(threadId) === channel) channels.delete(threadId);
      if (channels.size === 0) closeSubscriber();
    }
  };

  return {
    local: false,
    get droppedMessages() {
      return dropped;
    },

    async publish(threadId, batch) {
      if (closed) throw new Error(`${NAME}: publish after close()`);
      await bounded("publish", async (signal) => {
        const text = await batchToText(batch, codec);
        if (Buffer.byteLength(text) > maxMessageBytes) {
          throw new Error(`${NAME}: a batch of ${Buffer.byteLength(text)} bytes is over maxMessageBytes (${maxMessageBytes}); subscribers would drop it`);
        }
        const client = await publisherClient();
        await client.sendCommand(["PUBLISH", prefix + threadId, text], { abortSignal: signal });
      });
    },

    async subscribe(threadId, listener): Promise<StreamSubscription> {
      if (closed) throw new Error(`${NAME}: subscribe after close()`);
      let channel = channels.get(threadId);
      if (!channel) {
        const created: Channel = {
          name: prefix + threadId,
          listeners: new Set(),
          subscribed: false,
          delivery: Promise.resolve(),
          onMessage: (message) => {
            created.delivery = created.delivery.then(() => deliver(created, message)).catch((err) => drop(created.name, "unreadable", err));
          },
        };
        channels.set(threadId, (channel = created));
      }
      const subscription = { listener };
      const mine = channel;
      mine.listeners.add(subscription);
      try {
        await serially(() => reconcile(threadId, mine));
      } catch (err) {
        mine.listeners.delete(subscription);
        void serially(() => reconcile(threadId, mine)).catch(report);
        throw err;
      }
      // Closed while it subscribed: close() found this channel gone or not yet subscribed.
      if (closed) throw new Error(`${NAME}: subscribe after close()`);
      return {
        async unsubscribe() {
          if (!mine.listeners.delete(subscription)) return;
          await serially(() => reconcile(threadId, mine)).catch(report);
        },
      };
    },

    async close() {
      if (closed) return;
      closed = true;
      for (const channel of channels.values()) channel.listeners.clear();
      channels.clear();
      closeSubscriber();
      // Destroying a client still connecting stops its reconnect loop too.
      if (publisher?.client.isOpen) publisher.client.destroy();
      publisher = undefined;
    },
  };
}

interface Settings {
  url?: string;
  client?: RedisClient;
  prefix: string;
  codec?: PayloadCodec;
  timeoutMs: number;
  maxMessageBytes: number;
}

function checkOptions(options: RedisStreamTransportOptions): Settings {
  const bad = (problem: string) => new StreamTransportInvalidError({ transport: NAME, problem });
  if (typeof options !== "object" || options === null) throw bad("options must be an object ({ url } or { client })");
  const { url, client, channelPrefix, codec, onError, timeout, maxMessageBytes } = options;
  if (url !== undefined && client !== undefined) throw bad("give `url` or `client`, not both: with a client of your own, the transport connects where it does");
  if (url !== undefined) {
    let protocol: string | undefined;
    try {
      protocol = typeof url === "string" ? new URL(url).protocol : undefined;
    } catch {
      protocol = undefined;
    }
    if (protocol !== "redis:" && protocol !== "rediss:") throw bad("`url` must be a redis:// or rediss:// URL, e.g. redis://localhost:6379");
  }
  if (client !== undefined && (typeof client !== "object" || client === null || typeof client.duplicate !== "function" || typeof client.sendCommand !== "function")) {
    throw bad("`client` must be a node-redis client (createClient() from the `redis` package)");
  }
  if (channelPrefix !== undefined && (typeof channelPrefix !== "string" || channelPrefix === "")) throw bad("`channelPrefix` must be a non-empty string, e.g. \"myapp:stream:\"");
  const shared = sharedOptionProblem({ codec, onError, maxMessageBytes });
  if (shared) throw bad(shared);
  let timeoutMs = DEFAULT_TIMEOUT_MS;
  try {
    if (timeout !== undefined) timeoutMs = durationMs(timeout, "redisStreamTransport timeout", "2s");
  } catch {
    throw bad('`timeout` must be a positive duration, like "2s" or a number of milliseconds');
  }
  return {
    ...(url !== undefined ? { url } : {}),
    ...(client !== undefined ? { client } : {}),
    prefix: channelPrefix ?? DEFAULT_PREFIX,
    ...(codec !== undefined ? { codec } : {}),
    timeoutMs,
    maxMessageBytes: maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
  };
}
