import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { AnswerReplay } from "./answer-replay.js";
import type { StreamBatch } from "./transport.js";

/** The path a reader asks for a thread's batches on: `/v1/threads/<thread id, URI-encoded>?run=<run id>`. */
export const DIRECT_PATH = "/v1/threads/";
/** Temporal's own limit on a workflow id. */
const MAX_THREAD_ID_CHARS = 1_000;
/** Run ids are UUIDs; a little room for other servers' formats. */
const MAX_RUN_ID_CHARS = 128;
/** A blank line now and then, so a reader (and any proxy between) sees a quiet connection is alive. */
const KEEPALIVE_MS = 15_000;

/** The worker's side of `directStreamTransport`: where readers connect. */
export interface DirectEndpointSettings {
  /** Readers connected at once, over every thread; one more is refused (503). */
  maxConnections: number;
  /** What a reader may leave unread before it is cut off (it then reads the thread by query). */
  maxBufferedBytes: number;
}

interface Reader {
  runId: string;
  res: ServerResponse;
}

/**
 * An HTTP endpoint that holds each reader's request open and writes it every batch published
 * for its thread and run, one line of text each. A reader that connects mid-answer first gets
 * the answer's deltas so far (`AnswerReplay`); what else it missed it reads from the thread,
 * like every transport's readers.
 * Knowing the run id is what lets a reader in: Temporal makes it (a random UUID) and shows it
 * only to those who may describe the thread, and they may read its history anyway.
 */
export class DirectEndpoint {
  readonly #readers = new Map<string, Set<Reader>>();
  readonly #replay = new AnswerReplay<{ runId: string; line: string }>();
  readonly #server: Server;
  #connections = 0;
  #keepalive: NodeJS.Timeout | undefined;

  constructor(private readonly settings: DirectEndpointSettings) {
    this.#server = createServer((req, res) => this.#handle(req, res));
    // The worker keeps its process alive; a listening endpoint, or a reader connected to it, must not.
    this.#server.unref();
    this.#server.on("connection", (socket) => socket.unref());
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
    this.#replay.note(threadId, batch, { runId, line });
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

  /** Readers connected now (what a test reads to see one is listening). */
  get connections(): number {
    return this.#connections;
  }

  async close(): Promise<void> {
    clearInterval(this.#keepalive);
    for (const readers of this.#readers.values()) for (const r of readers) r.res.destroy();
    this.#readers.clear();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const refuse = (status: number, problem: string) => {
      res.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" }).end(`${problem}\n`);
    };
    if (req.method !== "GET") return refuse(405, "only GET: GET /v1/threads/<thread id>?run=<run id>");
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "http://endpoint");
    } catch {
      return refuse(400, "unreadable request target");
    }
    if (!url.pathname.startsWith(DIRECT_PATH)) return refuse(404, "not found: GET /v1/threads/<thread id>?run=<run id>");
    let threadId: string;
    try {
      threadId = decodeURIComponent(url.pathname.slice(DIRECT_PATH.length));
    } catch {
      return refuse(400, "the thread id is not valid URI encoding");
    }
    const runId = url.searchParams.get("run") ?? "";
    if (threadId === "" || threadId.length > MAX_THREAD_ID_CHARS) return refuse(400, `the thread id must be 1 to ${MAX_THREAD_ID_CHARS} characters`);
    if (runId === "" || runId.length > MAX_RUN_ID_CHARS) return refuse(400, `run must be the thread's run id (1 to ${MAX_RUN_ID_CHARS} characters)`);
    if (this.#connections >= this.settings.maxConnections) return refuse(503, "too many readers on this worker; read the thread instead");

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
  }

  #ping(): void {
    for (const readers of this.#readers.values()) for (const r of readers) if (r.res.writableLength === 0) r.res.write("\n");
  }
}
