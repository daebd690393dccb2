import { isIP } from "node:net";
import { networkInterfaces } from "node:os";
import type { Client } from "@temporalio/client";
import type { PayloadCodec } from "@temporalio/common";
import { StreamTransportInvalidError } from "../core/errors/setup.js";
import { batchFromText, batchToText, DEFAULT_MAX_MESSAGE_BYTES, sharedOptionProblem } from "./batch-text.js";
import { streamKeyOf } from "../core/stream-key.js";
import { deliverBatch } from "./deliver.js";
import type { EndpointAnnouncement } from "./direct-beacon.js";
import { DirectEndpoint } from "./direct-endpoint.js";
import { createInProcessTransport, inProcessStreamTransport } from "./in-process.js";
import { ThreadPeers, WorkerDirectory } from "./direct-peers.js";
import type { StreamBatch, StreamSubscription, StreamTransport } from "./transport.js";

/** Where a worker's endpoint listens, how readers reach it, and what it accepts. */
export interface DirectStreamTransportOptions {
  /**
   * The interface a worker's endpoint binds to. Default: this host's first private address
   * (IPv4 10/8, 172.16/12, 192.168/16, 100.64/10, or IPv6 fc00::/7: a pod's address in
   * Kubernetes, a laptop's LAN address), else loopback (`127.0.0.1`): never every interface,
   * never a public address, unless you name one. `"127.0.0.1"` keeps readers to this host;
   * `"0.0.0.0"` opens every interface (readers still need the proofs, see docs/security.md).
   */
  host?: string;
  /** The port a worker's endpoint binds to. Default 0: a free port, which the worker announces. */
  port?: number;
  /**
   * The origin readers connect to, e.g. `https://worker-3.internal:7400` (behind a NAT or a
   * port mapping). The endpoint speaks TLS itself, with a certificate readers pin: whatever
   * is in between must pass TCP through, not end TLS. Default: `https://` the bound address
   * (the `host` address, or this host's first private address for `0.0.0.0`), with the bound port.
   */
  advertise?: string;
  /**
   * A payload codec (the one the worker's data converter has, e.g. `aesGcmCodec`) every
   * batch goes through before it leaves the worker, so that message text is not on the
   * network in the clear. Give every transport of the deployment the same codec: a reader
   * drops what it cannot decode.
   */
  codec?: PayloadCodec;
  /** Readers connected to one worker at once, over every thread. Default 1,024; one more is refused and reads the thread instead. */
  maxConnections?: number;
  /** The largest batch sent or accepted, in bytes (after the codec). Default 4 MiB. */
  maxMessageBytes?: number;
  /** Told of each line a reader dropped (unreadable, over `maxMessageBytes`, refused by the codec). Default: nothing. */
  onError?: (err: Error) => void;
}

/** What `directStreamTransport` returns. */
export interface DirectStreamTransport extends StreamTransport {
  readonly local: false;
  /**
   * Starts this process's endpoint (a worker's; readers never need one) and resolves with
   * the URL it announces. `createAgentWorker` calls it; with `durableAgentsPlugin` on a
   * `Worker.create` of your own, await it before creating the worker. Calling it again
   * returns the same URL.
   */
  listen(): Promise<string>;
  /** The announced URL once `listen()` resolved. */
  readonly url: string | undefined;
  /** What the worker's beacon announces once `listen()` resolved: the URL, the certificate's pin and the gate readers prove. */
  readonly announcement: EndpointAnnouncement | undefined;
  /**
   * Lets in readers that prove a stream key this Temporal client can read from the run's memo
   * (a describe per run, a read and never a billed action). The worker plugin does it with
   * the worker's own client when the worker runs; until then the endpoint refuses every
   * reader. Returns how to stop.
   */
  verifyWith(client: Client): () => void;
  /** Readers connected to this process's endpoint now. */
  readonly connections: number;
  /** Connections this process's readers hold to workers' endpoints now: one per followed thread and worker reached. */
  readonly workerConnections: number;
  /** Lines from workers that reached no listener because they were unreadable (see `onError`). */
  readonly droppedMessages: number;
}

const NAME = "directStreamTransport";
const BRAND = Symbol.for("durable-agents.stream.direct");
// The endpoints of the default transports listening in this process, whichever copy of the
// package opened them: a default transport's reader here hears those workers in-process and
// must not connect to them too.
const SHARED = Symbol.for("durable-agents.stream.direct.shared");
const sharedEndpoints = ((globalThis as { [SHARED]?: Set<string> })[SHARED] ??= new Set<string>());
// Marks a default transport (`shared`), whichever copy of the package made it.
const DEFAULT = Symbol.for("durable-agents.stream.default");
const DEFAULT_MAX_CONNECTIONS = 1_024;
/** What one connection may leave unread before the endpoint cuts it off. */
const MAX_BUFFERED_BATCHES = 16;

/** True for a transport made by {@link directStreamTransport} (the worker then announces its endpoint). */
export function isDirectStreamTransport(value: unknown): value is DirectStreamTransport {
  return typeof value === "object" && value !== null && (value as { [BRAND]?: boolean })[BRAND] === true;
}

/** True for a transport made by `defaultStreamTransport` (default.ts): `createDirectTransport` with `shared`. */
export function isDefaultStreamTransport(value: unknown): boolean {
  return isDirectStreamTransport(value) && (value as { [DEFAULT]?: boolean })[DEFAULT] === true;
}

/**
 * A stream transport with nothing but Temporal and the workers: each worker serves its
 * threads' batches over HTTP from an endpoint of its own, and announces the endpoint while it
 * runs by a long-poll on the queue's beacon (`durable-agents-stream/<task queue>`) whose
 * identity names it, so that a reader finds the workers of a thread's task queue in
 * Temporal's list of the beacon's pollers (a describe, not a billed action) and connects to
 * each. A streamed turn then costs what it costs on Redis, with no broker to run: no signal
 * per batch, no query per reader. A reader that connects mid-answer first gets the answer's
 * deltas so far. This is what `createAgentWorker` and the clients use when given no
 * transport (with the worker's and the client's payload codecs); create one yourself to
 * choose its interface, port, advertised URL or codec.
 *
 * The endpoint speaks TLS 1.3 with a key made when the worker starts, whose certificate's
 * pin the beacon announces: a reader names nothing before the endpoint proved it holds that
 * key. A reader then proves, bound to that connection, that it read the beacon and that it
 * holds the run's stream key, which the client that started the workflow put in its memo
 * (so only those who may describe the workflow in Temporal have it; no token, link or page
 * does). A connection that proves nothing holds no reader's place. See docs/security.md.
 * Delivery is best effort, as on every transport: what a reader misses (a worker it cannot
 * reach, a connection that dropped), it reads from the thread: messages and statuses, not deltas.
 *
 * Give the same call's result to the worker (`threads.stream.transport`) and to the clients
 * (`stream.transport`) in every process; the worker's `createAgentWorker` starts its endpoint.
 * Options it cannot use throw AI1080.
 *
 * @example
 * ```ts
 * const transport = directStreamTransport({ host: "10.0.0.5" });
 * const worker = await createAgentWorker({ ..., threads: { stream: { transport } } });
 * const agents = new AgentClient({ ..., stream: { transport } });
 * ```
 */
export function directStreamTransport(options: DirectStreamTransportOptions = {}): DirectStreamTransport {
  return createDirectTransport(checkOptions(options), { onError: options.onError });
}

/**
 * @internal The direct transport from checked settings. Within this process, batches reach
 * the transport's own readers in-process; `shared` (the default transport's), through the
 * process's in-process transport, where every shared one meets, so a worker and a client
 * each given the default hear each other without a connection.
 */
export function createDirectTransport(settings: Settings, { onError, shared = false }: { onError?: (err: Error) => void; shared?: boolean } = {}): DirectStreamTransport {
  const { codec, maxMessageBytes } = settings;
  const local = shared ? inProcessStreamTransport() : createInProcessTransport();
  const own = (endpoint: string): boolean => endpoint === url || (shared && sharedEndpoints.has(endpoint));
  const listeners = new Map<string, Set<{ listener: (batch: StreamBatch) => void }>>();
  const followed = new Map<string, { peers: ThreadPeers; delivery: Promise<void>; started?: Promise<void> }>();
  const directories = new WeakMap<Client, WorkerDirectory>();
  let endpoint: DirectEndpoint | undefined;
  let listening: Promise<string> | undefined;
  let url: string | undefined;
  let dropped = 0;
  let closed = false;

  const deliver = (threadId: string, batch: StreamBatch): void => deliverBatch(listeners.get(threadId) ?? [], batch);
  const drop = (problem: string, cause?: unknown): void => {
    dropped++;
    try {
      onError?.(new Error(`${NAME}: dropped a batch: ${problem}`, cause === undefined ? undefined : { cause }));
    } catch {
      // The hook's own failure has nowhere better to go.
    }
  };
  const follow = (threadId: string, client: Client): Promise<void> => {
    let directory = directories.get(client);
    if (!directory) directories.set(client, (directory = new WorkerDirectory(client)));
    const state: { peers: ThreadPeers; delivery: Promise<void>; started?: Promise<void> } = {
      delivery: Promise.resolve(),
      peers: new ThreadPeers(
        client,
        directory,
        threadId,
        // Decoding is async with a codec: each line waits for the one before, so order holds.
        (line) => {
          state.delivery = state.delivery.then(async () => {
            const read = await batchFromText(line, codec);
            if ("problem" in read) drop(read.problem, read.cause);
            else deliver(threadId, read.batch);
          });
        },
        { maxLineBytes: maxMessageBytes, own },
      ),
    };
    followed.set(threadId, state);
    // Started once each worker's replay of the thread has been read and handed on (decoding may be async).
    return (state.started = state.peers.start().then(() => state.delivery));
  };

  return {
    [BRAND]: true,
    [DEFAULT]: shared,
    local: false,
    get url() {
      return url;
    },
    get announcement() {
      return endpoint && url !== undefined ? { url, pin: endpoint.pin, gate: endpoint.gate } : undefined;
    },
    verifyWith(client: Client) {
      if (!endpoint) throw new Error(`${NAME}: verifyWith before listen()`);
      return endpoint.addKeySource(async (threadId, runId) => streamKeyOf((await client.workflow.getHandle(threadId, runId).describe()).memo));
    },
    get connections() {
      return endpoint?.connections ?? 0;
    },
    get workerConnections() {
      return [...followed.values()].reduce((n, { peers }) => n + peers.open, 0);
    },
    get droppedMessages() {
      return dropped;
    },

    listen() {
      if (closed) return Promise.reject(new Error(`${NAME}: listen after close()`));
      listening ??= (async () => {
        const server = new DirectEndpoint({ maxConnections: settings.maxConnections, maxBufferedBytes: MAX_BUFFERED_BATCHES * maxMessageBytes });
        const host = settings.host ?? defaultHost();
        const port = await server.listen(host, settings.port);
        endpoint = server;
        url = settings.advertise ?? `https://${advertisedHost(host)}:${port}`;
        if (shared) sharedEndpoints.add(url);
        return url;
      })();
      return listening;
    },

    async publish(threadId, batch, context) {
      if (closed) throw new Error(`${NAME}: publish after close()`);
      await local.publish(threadId, batch, context);
      // Encoded even with no reader connected: one that connects mid-answer gets it then.
      if (!endpoint || context?.runId === undefined) return;
      const text = await batchToText(batch, codec);
      if (Buffer.byteLength(text) > maxMessageBytes) {
        throw new Error(`${NAME}: a batch of ${Buffer.byteLength(text)} bytes is over maxMessageBytes (${maxMessageBytes}); readers would drop it`);
      }
      endpoint.send(threadId, context.runId, batch, text);
    },

    async subscribe(threadId, listener, context): Promise<StreamSubscription> {
      if (closed) throw new Error(`${NAME}: subscribe after close()`);
      const subscription = { listener };
      let mine = listeners.get(threadId);
      if (!mine) listeners.set(threadId, (mine = new Set()));
      mine.add(subscription);
      const inProcess = await local.subscribe(threadId, listener, context);
      // Every subscriber waits for the first look at the workers, not only the one that started it.
      if (context?.client) await (followed.get(threadId)?.started ?? follow(threadId, context.client));
      return {
        async unsubscribe() {
          await inProcess.unsubscribe();
          const current = listeners.get(threadId);
          if (!current?.delete(subscription) || current.size > 0) return;
          listeners.delete(threadId);
          followed.get(threadId)?.peers.stop();
          followed.delete(threadId);
        },
      };
    },

    async close() {
      if (closed) return;
      closed = true;
      for (const { peers } of followed.values()) peers.stop();
      followed.clear();
      listeners.clear();
      if (url !== undefined) sharedEndpoints.delete(url);
      await endpoint?.close();
    },
  } as DirectStreamTransport;
}

/** The address readers reach a worker at: the bound one, or for every interface this host's first private one. */
function advertisedHost(host: string): string {
  const address = host === "0.0.0.0" || host === "::" ? defaultHost() : host;
  return isIP(address) === 6 ? `[${address}]` : address;
}

/**
 * Where an endpoint binds when told nothing: this host's first private address, where the
 * readers of a deployment reach it (a pod's, a VM's, a container's, a laptop's LAN), else
 * loopback. Never a public address: those are bound only when named.
 */
export function defaultHost(): string {
  const all = Object.values(networkInterfaces()).flatMap((addresses) => addresses ?? []).filter((a) => !a.internal && isPrivateAddress(a.address));
  return (all.find((a) => a.family === "IPv4") ?? all[0])?.address ?? "127.0.0.1";
}

/** RFC 1918, RFC 6598 (carrier-grade NAT, some clusters' pod ranges) and IPv6 unique-local addresses. */
export function isPrivateAddress(address: string): boolean {
  if (isIP(address) === 6) return /^f[cd][0-9a-f]{2}:/i.test(address);
  const [a = -1, b = -1] = address.split(".").map(Number);
  return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
}

/** @internal What `directStreamTransport` makes of its options. */
export interface Settings {
  /** Undefined: `defaultHost()`, decided when the endpoint listens. */
  host?: string;
  port: number;
  advertise?: string;
  codec?: PayloadCodec;
  maxConnections: number;
  maxMessageBytes: number;
}

/** @internal Checks a `directStreamTransport`'s options; AI1080 for the first one that is wrong. */
export function checkOptions(options: DirectStreamTransportOptions): Settings {
  const bad = (problem: string) => new StreamTransportInvalidError({ transport: NAME, problem });
  if (typeof options !== "object" || options === null) throw bad("options must be an object ({ host, port, advertise, codec })");
  const { host, port, advertise, codec, maxConnections, maxMessageBytes, onError } = options;
  if (host !== undefined && (typeof host !== "string" || host === "")) throw bad('`host` must be an interface address, e.g. "10.0.0.5" or "0.0.0.0"');
  if (port !== undefined && (typeof port !== "number" || !Number.isSafeInteger(port) || port < 0 || port > 65_535)) throw bad("`port` must be a whole number from 0 (any free port) to 65535");
  let advertised: string | undefined;
  if (advertise !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = typeof advertise === "string" ? new URL(advertise) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!parsed || parsed.protocol !== "https:" || parsed.pathname !== "/" || parsed.search || parsed.hash || parsed.username || parsed.password) {
      throw bad("`advertise` must be an https:// origin with no path, e.g. https://worker-3.internal:7400 (the endpoint speaks TLS itself; a proxy in front must pass TCP through)");
    }
    advertised = parsed.origin;
  }
  const shared = sharedOptionProblem({ codec, onError, maxMessageBytes });
  if (shared) throw bad(shared);
  if (maxConnections !== undefined && (typeof maxConnections !== "number" || !Number.isSafeInteger(maxConnections) || maxConnections <= 0)) throw bad("`maxConnections` must be a positive whole number");
  return {
    ...(host !== undefined ? { host } : {}),
    port: port ?? 0,
    ...(advertised !== undefined ? { advertise: advertised } : {}),
    ...(codec !== undefined ? { codec } : {}),
    maxConnections: maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    maxMessageBytes: maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
  };
}
