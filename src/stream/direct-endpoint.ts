import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import { ThreadReplay } from "./thread-replay.js";
import { endpointCertificate, type EndpointCertificate } from "./direct-certificate.js";
import { channelBinding, GATE_HEADER, gateProof, PROOF_HEADER, randomKey, readProof, sameProof } from "./direct-proof.js";
import type { StreamBatch } from "./transport.js";

/** The path a reader asks for a thread's batches on: `/v2/threads/<thread id, URI-encoded>?run=<run id>`. */
export const DIRECT_PATH = "/v2/threads/";
/** Temporal's own limit on a workflow id. */
const MAX_THREAD_ID_CHARS = 1_000;
/** Run ids are UUIDs; a little room for other servers' formats. */
const MAX_RUN_ID_CHARS = 128;
/** A blank line now and then, so a reader (and any proxy between) sees a quiet connection is alive. */
const KEEPALIVE_MS = 15_000;
/**
 * How long a connection may take to finish its TLS handshake and send a request that proves
 * it may read. Until then it holds no reader's place; past it, it is closed.
 */
const AUTH_MS = 5_000;
/**
 * Connections beyond the proven readers' places, for those still proving themselves: past it
 * a new connection is closed at once (readers retry), and a proven reader loses nothing.
 */
const MAX_UNPROVEN = 4_096;
/** Stream keys remembered (a describe each, otherwise); the least recently looked up goes first. */
const MAX_KEYS = 10_000;
/** How long a run found to have no key (or no such run) is taken as such before it is looked up again. */
const NO_KEY_MS = 5_000;

/** The worker's side of `directStreamTransport`: where readers connect. */
export interface DirectEndpointSettings {
  /** Proven readers connected at once, over every thread; one more is refused (503). */
  maxConnections: number;
  /** What a reader may leave unread before it is cut off (it then reads the thread by query). */
  maxBufferedBytes: number;
}

/**
 * Looks up a workflow run's stream key (its memo's, see src/core/stream-key.ts): undefined for
 * a run this source does not know or that has none. A worker gives its endpoint one through
 * its Temporal client (a describe: a read, never a billed action).
 */
export type StreamKeySource = (threadId: string, runId: string) => Promise<string | undefined>;

interface Reader {
  runId: string;
  res: ServerResponse;
}

/**
 * An HTTPS endpoint that holds each proven reader's request open and writes it every batch
 * published for its thread and run, one line of text each. A reader that connects first gets
 * what this worker kept of the run (`ThreadReplay`: its latest durable entries, then the
 * answer's deltas so far), then a blank line; what else it missed it reads from the thread,
 * like every transport's readers.
 *
 * Who gets in: TLS 1.3 with a certificate whose pin the worker announces through Temporal, so
 * a reader knows it talks to this worker before it names anything; then a request that proves,
 * over this connection's keying material, that the reader read the worker's beacon (the gate,
 * checked in memory) and holds the run's stream key (from the workflow's memo, looked up once
 * per run). Knowing a thread's id or run id (a token carries them) is not enough. A connection
 * that has proven nothing holds no reader's place and is closed after AUTH_MS.
 */
export class DirectEndpoint {
  readonly #readers = new Map<string, Set<Reader>>();
  readonly #replay = new ThreadReplay<{ runId: string; line: string }>();
  readonly #server: Server;
  readonly #certificate: EndpointCertificate = endpointCertificate();
  /** What a reader proves it read in Temporal (the worker's beacon carries it). */
  readonly gate = randomKey();
  readonly #sources = new Set<StreamKeySource>();
  readonly #keys = new Map<string, Promise<string | undefined>>();
  readonly #noKey = new Map<string, number>();
  /** How to mark a connection proven (its deadline no longer applies). */
  readonly #unproven = new WeakMap<Socket, () => void>();
  #connections = 0;
  #refused = 0;
  #keepalive: NodeJS.Timeout | undefined;

  constructor(private readonly settings: DirectEndpointSettings) {
    this.#server = createServer({ key: this.#certificate.key, cert: this.#certificate.cert, minVersion: "TLSv1.3", handshakeTimeout: AUTH_MS }, (req, res) => {
      void this.#handle(req, res);
    });
    // A request must be whole within AUTH_MS, checked every second rather than Node's 30.
    this.#server.headersTimeout = AUTH_MS;
    this.#server.requestTimeout = AUTH_MS;
    (this.#server as unknown as { connectionsCheckingInterval?: number }).connectionsCheckingInterval = 1_000;
    // The worker keeps its process alive; a listening endpoint, or a reader connected to it, must not.
    this.#server.unref();
    this.#server.maxConnections = settings.maxConnections + MAX_UNPROVEN;
    this.#server.on("connection", (socket: Socket) => socket.unref());
    this.#server.on("secureConnection", (socket: TLSSocket) => this.#accept(socket));
    // A stranger's broken handshake is not the worker's error to report.
    this.#server.on("tlsClientError", (_err, socket) => socket.destroy());
  }

  /** The pin readers check this endpoint's certificate against (announced by the beacon). */
  get pin(): string {
    return this.#certificate.pin;
  }

  /** Where stream keys are looked up (a worker's Temporal client); returns how to stop using it. */
  addKeySource(source: StreamKeySource): () => void {
    this.#sources.add(source);
    return () => {
      this.#sources.delete(source);
      this.#keys.clear();
    };
  }

  /** Binds to `host:port` (port 0: any free one); resolves with the port. */
  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(port, host, () => {
        this.#server.off("error", reject);
        this.#keepalive = setInterval(() => this.#ping(), KEEPALIVE_MS).unref();
        resolve((this.#server.address() as AddressInfo).port);
      });
    });
  }

  /** Writes `text` (`batch`, encoded) to every reader of `threadId`'s run `runId`, and keeps it while its answer goes on. */
  send(threadId: string, runId: string, batch: StreamBatch, text: string): void {
    const line = `${text}\n`;
    this.#replay.note(threadId, batch, { runId, line }, line.length);
    for (const reader of [...(this.#readers.get(threadId) ?? [])]) if (reader.runId === runId) this.#write(reader, line);
  }

  #write(reader: Reader, line: string): void {
    // A reader that does not keep up would hold the worker's memory: it is cut off, and
    // reads what it missed from the thread.
    if (reader.res.writableLength + line.length > this.settings.maxBufferedBytes) {
      reader.res.destroy();
      return;
    }
    reader.res.write(line);
  }

  /** Proven readers connected now (what a test reads to see one is listening). */
  get connections(): number {
    return this.#connections;
  }

  /** Requests refused for what they failed to prove (what a test reads to see a stranger was turned away). */
  get refused(): number {
    return this.#refused;
  }

  async close(): Promise<void> {
    clearInterval(this.#keepalive);
    for (const readers of this.#readers.values()) for (const r of readers) r.res.destroy();
    this.#readers.clear();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** A connection past its handshake has AUTH_MS (from its start) to prove it may read; until then it holds no reader's place. */
  #accept(socket: TLSSocket): void {
    const deadline = setTimeout(() => socket.destroy(), AUTH_MS).unref();
    this.#unproven.set(socket, () => clearTimeout(deadline));
    socket.once("close", () => clearTimeout(deadline));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refuse = (status: number, problem: string) => {
      if (status === 403) this.#refused++;
      if (!res.headersSent) res.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" }).end(`${problem}\n`);
    };
    if (req.method !== "GET") return refuse(405, "only GET");
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "https://endpoint");
    } catch {
      return refuse(400, "unreadable request target");
    }
    if (!url.pathname.startsWith(DIRECT_PATH)) return refuse(404, "not found");
    let threadId: string;
    try {
      threadId = decodeURIComponent(url.pathname.slice(DIRECT_PATH.length));
    } catch {
      return refuse(400, "the thread id is not valid URI encoding");
    }
    const runId = url.searchParams.get("run") ?? "";
    if (threadId === "" || threadId.length > MAX_THREAD_ID_CHARS) return refuse(400, `the thread id must be 1 to ${MAX_THREAD_ID_CHARS} characters`);
    if (runId === "" || runId.length > MAX_RUN_ID_CHARS) return refuse(400, `run must be the thread's run id (1 to ${MAX_RUN_ID_CHARS} characters)`);
    const binding = channelBinding(req.socket as TLSSocket);
    // One answer for every failed proof, so a stranger learns nothing of which threads exist.
    if (!sameProof(req.headers[GATE_HEADER], gateProof(this.gate, binding))) return refuse(403, "refused");
    const key = await this.#keyOf(threadId, runId);
    if (res.destroyed) return;
    if (key === undefined || !sameProof(req.headers[PROOF_HEADER], readProof(key, binding, threadId, runId))) return refuse(403, "refused");
    if (this.#connections >= this.settings.maxConnections) return refuse(503, "too many readers on this worker; read the thread instead");

    this.#unproven.get(req.socket)?.();
    this.#connections++;
    const reader: Reader = { runId, res };
    let readers = this.#readers.get(threadId);
    if (!readers) this.#readers.set(threadId, (readers = new Set()));
    readers.add(reader);
    res.once("close", () => {
      this.#connections--;
      const current = this.#readers.get(threadId);
      current?.delete(reader);
      if (current?.size === 0) this.#readers.delete(threadId);
    });
    // Answered at once, so the reader knows it is listening before the next batch is published.
    res.writeHead(200, { "content-type": "application/x-ndjson", "cache-control": "no-store" });
    res.flushHeaders();
    for (const kept of this.#replay.of(threadId)) if (kept.runId === runId) this.#write(reader, kept.line);
    // The blank line (what keeps a quiet connection open) says the replay is over: the reader's catch-up may begin.
    this.#write(reader, "\n");
  }

  /** The run's stream key, looked up once (concurrent requests for one run share the lookup). */
  #keyOf(threadId: string, runId: string): Promise<string | undefined> {
    const id = `${runId} ${threadId}`;
    const known = this.#keys.get(id);
    if (known) {
      // Map order is lookup order: the least recently used is forgotten first.
      this.#keys.delete(id);
      this.#keys.set(id, known);
      return known;
    }
    const missedAt = this.#noKey.get(id);
    if (missedAt !== undefined && Date.now() - missedAt < NO_KEY_MS) return Promise.resolve(undefined);
    this.#noKey.delete(id);
    const lookup = (async () => {
      for (const source of [...this.#sources]) {
        const key = await source(threadId, runId).catch(() => undefined);
        if (key !== undefined) return key;
      }
      return undefined;
    })();
    this.#keys.set(id, lookup);
    if (this.#keys.size > MAX_KEYS) this.#keys.delete(this.#keys.keys().next().value!);
    void lookup.then((key) => {
      if (key !== undefined) return;
      this.#keys.delete(id);
      this.#noKey.set(id, Date.now());
      if (this.#noKey.size > MAX_KEYS) this.#noKey.delete(this.#noKey.keys().next().value!);
    });
    return lookup;
  }

  #ping(): void {
    for (const readers of this.#readers.values()) for (const r of readers) if (r.res.writableLength === 0) r.res.write("\n");
  }
}
