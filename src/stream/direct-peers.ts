import { request, type ClientRequest } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { connect as connectTls, type TLSSocket } from "node:tls";
import type { Client } from "@temporalio/client";
import proto from "@temporalio/proto";
import { streamKeyOf } from "../core/stream-key.js";
import { BEACON_FRESH_MS, beaconQueue, endpointOfIdentity, type EndpointAnnouncement } from "./direct-beacon.js";
import { pinOf } from "./direct-certificate.js";
import { DIRECT_PATH } from "./direct-endpoint.js";
import { channelBinding, GATE_HEADER, gateProof, PROOF_HEADER, readProof } from "./direct-proof.js";

const { TaskQueueType } = proto.temporal.api.enums.v1;

type Described = Awaited<ReturnType<ReturnType<Client["workflow"]["getHandle"]>["describe"]>>;

/** How long the workers of a task queue, as Temporal last listed them, are taken as they are. */
const DIRECTORY_MS = 2_000;
/** How often a followed thread's run and workers are looked at again. */
const REFRESH_MS = 1_000;
/** How long a followed thread's run, as last described, is taken as it is while every connection it wants is open (see `ThreadPeers.#describe`). */
const SETTLED_DESCRIBE_MS = 10_000;
/** How long an endpoint that refused or failed is left alone. */
const BACKOFF_MS = 5_000;
/** How long connecting to an endpoint may take before it counts as failed. */
const CONNECT_MS = 1_500;
/** How long a connection waits for the endpoint's replay to end (its blank line) before it counts as caught up. */
const REPLAY_WAIT_MS = 250;

/**
 * The endpoints of the workers of a task queue, read from Temporal's list of the pollers of
 * its beacon queue (a describe of the task queue: a read, not a billed action), shared by
 * every thread a process follows on that queue.
 */
export class WorkerDirectory {
  readonly #queues = new Map<string, { at: number; endpoints: Promise<EndpointAnnouncement[]> }>();

  constructor(private readonly client: Client) {}

  endpoints(taskQueue: string): Promise<EndpointAnnouncement[]> {
    const known = this.#queues.get(taskQueue);
    if (known && Date.now() - known.at < DIRECTORY_MS) return known.endpoints;
    const endpoints = this.#list(taskQueue);
    this.#queues.set(taskQueue, { at: Date.now(), endpoints });
    endpoints.catch(() => this.#queues.delete(taskQueue));
    return endpoints;
  }

  async #list(taskQueue: string): Promise<EndpointAnnouncement[]> {
    const { workflowService, options } = this.client;
    const described = await workflowService.describeTaskQueue({
      namespace: options.namespace,
      taskQueue: { name: beaconQueue(taskQueue) },
      taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    });
    const found = new Map<string, EndpointAnnouncement>();
    for (const poller of described.pollers ?? []) {
      // Temporal lists a stopped worker's beacon for minutes: one that has not polled lately is passed by.
      const polledAt = Number(poller.lastAccessTime?.seconds ?? 0) * 1000 + Math.floor((poller.lastAccessTime?.nanos ?? 0) / 1e6);
      if (Date.now() - polledAt > BEACON_FRESH_MS) continue;
      const endpoint = endpointOfIdentity(poller.identity);
      if (endpoint) found.set(`${endpoint.url} ${endpoint.pin}`, endpoint);
    }
    return [...found.values()];
  }
}

/** How a thread's connections hand on what they read, and what they leave out. */
export interface PeerSettings {
  /** The longest line accepted; a longer one ends the connection. */
  maxLineBytes: number;
  /** Whether an endpoint is this process's own: its batches reach its readers without a connection. */
  own(endpoint: string): boolean;
}

interface Connection {
  key: string;
  /** Until the request is made, the TLS connection it will go over. */
  socket: TLSSocket;
  req?: ClientRequest;
  /** The endpoint answered 200: batches may come. */
  open: boolean;
}

/**
 * A reader process's connections for one thread: one to each worker of the thread's task
 * queue, asking for the thread's current run. Looked at again every second (the task
 * queue's workers, shared by the threads of the process; the thread's describe, free, only
 * every 10 s while all its connections are open), so a worker that joins or a connection
 * that dropped is taken up at once and a run continued as new within 10 s; what was
 * published meanwhile the reader reads from the thread.
 *
 * A connection names the thread only to an endpoint that presented the certificate its
 * beacon pinned (a process that took a stopped worker's port learns nothing), and proves the
 * run's stream key, read from the thread's memo, without sending it. A thread whose memo has
 * no key (started before keys existed, or by a workflow of your own) is read from the thread.
 */
export class ThreadPeers {
  readonly #connections = new Map<string, Connection>();
  readonly #failed = new Map<string, number>();
  readonly #stopped = new AbortController();
  #wake: AbortController | undefined;
  #described: { at: number; described: Described } | undefined;

  constructor(
    private readonly client: Client,
    private readonly directory: WorkerDirectory,
    private readonly threadId: string,
    private readonly onLine: (line: string) => void,
    private readonly settings: PeerSettings,
  ) {}

  /** Connects to the workers there are now, then keeps looking; resolves once the first look is done. */
  async start(): Promise<void> {
    await this.#refresh().catch(() => undefined);
    void this.#loop();
  }

  /** Connections the endpoints accepted and that are still open. */
  get open(): number {
    return [...this.#connections.values()].filter((c) => c.open).length;
  }

  stop(): void {
    this.#stopped.abort();
    for (const c of this.#connections.values()) c.socket.destroy();
    this.#connections.clear();
  }

  async #loop(): Promise<void> {
    while (!this.#stopped.signal.aborted) {
      this.#wake = new AbortController();
      await sleep(REFRESH_MS, undefined, { signal: AbortSignal.any([this.#stopped.signal, this.#wake.signal]) }).catch(() => undefined);
      if (this.#stopped.signal.aborted) return;
      await this.#refresh().catch(() => undefined);
    }
  }

  async #refresh(): Promise<void> {
    const described = await this.#describe();
    if (this.#stopped.signal.aborted) return;
    const streamKey = described.status.name === "RUNNING" ? streamKeyOf(described.memo) : undefined;
    const endpoints = streamKey ? (await this.directory.endpoints(described.taskQueue)).filter((e) => !this.settings.own(e.url)) : [];
    const wanted = new Map(endpoints.map((e) => [`${e.url} ${e.pin} ${described.runId}`, e]));
    for (const [key, connection] of this.#connections) {
      if (wanted.has(key)) continue;
      this.#connections.delete(key);
      connection.socket.destroy();
    }
    const now = Date.now();
    await Promise.all(
      [...wanted]
        .filter(([key]) => !this.#connections.has(key) && now - (this.#failed.get(key) ?? 0) >= BACKOFF_MS)
        .map(([key, endpoint]) => this.#connect(key, endpoint, described.runId, streamKey!)),
    );
  }

  /**
   * The thread as last described, described again unless every connection it wants is open
   * and the last look is under `SETTLED_DESCRIBE_MS` old: its run changes only when it
   * continues as new, and a new worker shows in the task queue's directory, not here. One
   * describe a second per followed thread was most of what a thousand idle readers cost the
   * server.
   */
  async #describe(): Promise<Described> {
    const last = this.#described;
    const connected = this.#connections.size > 0 && [...this.#connections.values()].every((c) => c.open);
    if (last && connected && Date.now() - last.at < SETTLED_DESCRIBE_MS) return last.described;
    const described = await this.client.workflow.getHandle(this.threadId).describe();
    this.#described = { at: Date.now(), described };
    return described;
  }

  /** Opens one connection; resolves once the endpoint answered (or failed). */
  #connect(key: string, endpoint: EndpointAnnouncement, runId: string, streamKey: string): Promise<void> {
    return new Promise((resolve) => {
      const target = new URL(endpoint.url);
      const socket = connectTls({
        host: target.hostname.replace(/^\[|\]$/g, ""),
        port: Number(target.port || 443),
        // No authority vouches for a worker's certificate: the pin its beacon announced does (checked below).
        rejectUnauthorized: false,
        minVersion: "TLSv1.3",
        timeout: CONNECT_MS,
      });
      const connection: Connection = { key, socket, open: false };
      this.#connections.set(key, connection);
      const fail = () => {
        this.#failed.set(key, Date.now());
        socket.destroy();
      };
      socket.on("timeout", fail);
      socket.on("error", () => this.#failed.set(key, Date.now()));
      socket.on("close", () => {
        connection.open = false;
        if (this.#connections.get(key) === connection) this.#connections.delete(key);
        this.#wake?.abort();
        resolve();
      });
      socket.once("secureConnect", () => {
        // Not the worker the beacon announced (a process on a stopped worker's port, say): it is told nothing.
        if (pinOf(socket.getPeerCertificate(true).raw) !== endpoint.pin) return fail();
        const binding = channelBinding(socket);
        const req = request({
          createConnection: () => socket,
          method: "GET",
          path: `${DIRECT_PATH}${encodeURIComponent(this.threadId)}?run=${encodeURIComponent(runId)}`,
          headers: {
            host: target.host,
            [GATE_HEADER]: gateProof(endpoint.gate, binding),
            [PROOF_HEADER]: readProof(streamKey, binding, this.threadId, runId),
          },
        });
        connection.req = req;
        req.on("error", () => this.#failed.set(key, Date.now()));
        req.on("response", (res) => {
          if (res.statusCode !== 200) {
            fail();
            return;
          }
          // Connected: from here only silence is normal (the endpoint writes a blank line now and then).
          socket.setTimeout(0);
          connection.open = true;
          res.on("close", () => {
            connection.open = false;
          });
          // Resolved once what the endpoint kept of the thread has been read: it ends its replay with
          // a blank line (an endpoint older than that is waited for REPLAY_WAIT_MS at most).
          const replayed = setTimeout(resolve, REPLAY_WAIT_MS).unref();
          res.setEncoding("utf8");
          let buffered = "";
          res.on("data", (chunk: string) => {
            buffered += chunk;
            let end: number;
            while ((end = buffered.indexOf("\n")) >= 0) {
              const line = buffered.slice(0, end);
              buffered = buffered.slice(end + 1);
              if (Buffer.byteLength(line) > this.settings.maxLineBytes) return fail();
              if (line.length > 0) this.onLine(line);
              else {
                clearTimeout(replayed);
                resolve();
              }
            }
            if (Buffer.byteLength(buffered) > this.settings.maxLineBytes) fail();
          });
        });
        req.end();
      });
    });
  }
}
