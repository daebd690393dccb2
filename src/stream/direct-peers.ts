import { request, type ClientRequest } from "node:http";
import { request as requestTls } from "node:https";
import { setTimeout as sleep } from "node:timers/promises";
import type { Client } from "@temporalio/client";
import proto from "@temporalio/proto";
import { beaconQueue, endpointOfIdentity } from "./direct-beacon.js";
import { DIRECT_PATH } from "./direct-endpoint.js";

const { TaskQueueType } = proto.temporal.api.enums.v1;

/** How long the workers of a task queue, as Temporal last listed them, are taken as they are. */
const DIRECTORY_MS = 2_000;
/** How often a followed thread's run and workers are looked at again. */
const REFRESH_MS = 1_000;
/** How long an endpoint that refused or failed is left alone. */
const BACKOFF_MS = 5_000;
/** How long connecting to an endpoint may take before it counts as failed. */
const CONNECT_MS = 1_500;

/**
 * The endpoints of the workers of a task queue, read from Temporal's list of the pollers of
 * its beacon queue (a describe of the task queue: a read, not a billed action), shared by
 * every thread a process follows on that queue.
 */
export class WorkerDirectory {
  readonly #queues = new Map<string, { at: number; endpoints: Promise<string[]> }>();

  constructor(private readonly client: Client) {}

  endpoints(taskQueue: string): Promise<string[]> {
    const known = this.#queues.get(taskQueue);
    if (known && Date.now() - known.at < DIRECTORY_MS) return known.endpoints;
    const endpoints = this.#list(taskQueue);
    this.#queues.set(taskQueue, { at: Date.now(), endpoints });
    endpoints.catch(() => this.#queues.delete(taskQueue));
    return endpoints;
  }

  async #list(taskQueue: string): Promise<string[]> {
    const { workflowService, options } = this.client;
    const described = await workflowService.describeTaskQueue({
      namespace: options.namespace,
      taskQueue: { name: beaconQueue(taskQueue) },
      taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    });
    const found = new Set<string>();
    for (const poller of described.pollers ?? []) {
      const url = endpointOfIdentity(poller.identity);
      if (url) found.add(url);
    }
    return [...found];
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
  req: ClientRequest;
  /** The endpoint answered 200: batches may come. */
  open: boolean;
}

/**
 * A reader process's connections for one thread: one to each worker of the thread's task
 * queue, asking for the thread's current run. Looked at again every second (a describe of
 * the thread, free), so a worker that joins, a run continued as new, or a connection that
 * dropped is taken up; what was published meanwhile the reader reads from the thread.
 */
export class ThreadPeers {
  readonly #connections = new Map<string, Connection>();
  readonly #failed = new Map<string, number>();
  readonly #stopped = new AbortController();
  #wake: AbortController | undefined;

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
    for (const c of this.#connections.values()) c.req.destroy();
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
    const described = await this.client.workflow.getHandle(this.threadId).describe();
    if (this.#stopped.signal.aborted) return;
    const running = described.status.name === "RUNNING";
    const endpoints = running ? (await this.directory.endpoints(described.taskQueue)).filter((url) => !this.settings.own(url)) : [];
    const wanted = new Map(endpoints.map((url) => [`${url} ${described.runId}`, url]));
    for (const [key, connection] of this.#connections) {
      if (wanted.has(key)) continue;
      this.#connections.delete(key);
      connection.req.destroy();
    }
    const now = Date.now();
    await Promise.all(
      [...wanted]
        .filter(([key]) => !this.#connections.has(key) && now - (this.#failed.get(key) ?? 0) >= BACKOFF_MS)
        .map(([key, url]) => this.#connect(key, url, described.runId)),
    );
  }

  /** Opens one connection; resolves once the endpoint answered (or failed). */
  #connect(key: string, url: string, runId: string): Promise<void> {
    return new Promise((resolve) => {
      const target = new URL(`${DIRECT_PATH}${encodeURIComponent(this.threadId)}?run=${encodeURIComponent(runId)}`, url);
      const send = target.protocol === "https:" ? requestTls : request;
      const req = send(target, { method: "GET", timeout: CONNECT_MS });
      const connection: Connection = { key, req, open: false };
      this.#connections.set(key, connection);
      const fail = () => {
        this.#failed.set(key, Date.now());
        req.destroy();
      };
      req.on("timeout", fail);
      req.on("error", () => {
        this.#failed.set(key, Date.now());
        resolve();
      });
      req.on("close", () => {
        connection.open = false;
        if (this.#connections.get(key) === connection) this.#connections.delete(key);
        this.#wake?.abort();
        resolve();
      });
      req.on("response", (res) => {
        if (res.statusCode !== 200) {
          fail();
          return;
        }
        // Connected: from here only silence is normal (the endpoint writes a blank line now and then).
        req.setTimeout(0);
        connection.open = true;
        res.on("close", () => {
          connection.open = false;
        });
        resolve();
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
          }
          if (Buffer.byteLength(buffered) > this.settings.maxLineBytes) fail();
        });
      });
      req.end();
    });
  }
}
