import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { DurableAgentsError } from "../core/errors/base.js";
import { RequestMalformedError } from "../core/errors/http.js";
import type { StreamSnapshot, StreamUpdate } from "../core/thread-contracts.js";
import type { Principal } from "../core/json.js";
import type { HttpEnv } from "./env.js";
import type { EventStreamOptions } from "./options.js";
import { durationMs } from "../core/duration.js";
import { hubFor, lastSeqOf, type StreamReader, type StreamSource } from "../client/threads/stream-hub.js";

/** A reader this far behind is disconnected; it reconnects with `Last-Event-ID` and catches up. */
const MAX_QUEUED = 10_000;

type Outgoing = { event?: string; id?: string; data: string };

/** What an events route follows: a thread's stream or a run's. */
export interface EventsOf {
  /** Where the stream is read (the hub's pollers are shared per source). */
  source: StreamSource;
  /** Authorizes the reader and checks the workflow exists, reading nothing billed; throws the typed refusal. */
  open(id: string, principal: Principal | undefined): Promise<void>;
  /**
   * Where a reader that names no event begins (default: the stream's start), asked once it is
   * authorized: a reader that starts where the stream is now lacks no durable entry, so joining
   * needs no billed read (the transport still replays the answer being written).
   */
  start?(id: string): Promise<number>;
}

/**
 * `GET /threads/:id/events` and `GET /runs/:id/events`: the stream as Server-Sent Events. Each entry (delta,
 * message, reset, status change) is one event whose `id` is its `seq` and whose data is
 * the entry as JSON; a reconnect with `Last-Event-ID` (or `?lastEventId=`) continues
 * exactly after it. `event: truncated` says entries were dropped (re-read the messages);
 * `event: error` carries `{ code, message }` before the server closes the stream.
 */
export function eventStreamRoute(events: EventsOf, options: EventStreamOptions) {
  const hub = hubFor(events.source, options.pollInterval === undefined ? 100 : durationMs(options.pollInterval, "events.pollInterval", "100ms"));
  const keepAliveMs = options.keepAliveInterval === undefined ? 15_000 : durationMs(options.keepAliveInterval, "events.keepAliveInterval", "15s");
  return async (c: Context<HttpEnv>) => {
    const id = c.req.param("id")!;
    const named = c.req.header("last-event-id") ?? c.req.query("lastEventId");
    const fromSeq = lastEventId(named);
    const startHere = events.start && (named === undefined || named === "") ? events.start : undefined;
    const principal = c.get("principal");

    const queue: Outgoing[] = [];
    let wake: (() => void) | undefined;
    let ended = false;
    const end = () => {
      ended = true;
      wake?.();
    };
    const push = (message: Outgoing) => {
      queue.push(message);
      wake?.();
    };
    const reader: StreamReader = {
      last: fromSeq,
      deliver(updates: StreamUpdate[], snapshot: StreamSnapshot, truncated: boolean) {
        if (truncated) push({ event: "truncated", data: JSON.stringify({ lastSeq: snapshot.lastSeq }) });
        if (updates.length === 0) return;
        reader.last = lastSeqOf(updates, reader.last);
        // Progress has no seq of its own: no id, so a reconnect's Last-Event-ID stays on the last entry of the log.
        for (const u of updates) push(u.type === "tool-progress" ? { data: JSON.stringify(u) } : { id: String(u.seq), data: JSON.stringify(u) });
        if (queue.length > MAX_QUEUED) end();
      },
      fail(err: unknown) {
        const body = DurableAgentsError.isDurableAgentsError(err) ? { code: err.code, message: err.message } : { code: "internal", message: "the stream failed" };
        push({ event: "error", data: JSON.stringify(body) });
        end();
      },
    };
    let leave: () => void;
    if (startHere) {
      // Nothing before where it starts is wanted: authorized first, then joined from there.
      await events.open(id, principal);
      reader.last = await startHere(id);
      leave = hub.join(id, reader);
    } else {
      // The reader joins the thread's poller at once, so nothing written while it is being
      // authorized is missed; what it collects is sent only once the hook allowed it.
      leave = hub.join(id, reader);
      try {
        // Authorizing reads nothing billed (a describe): the poller carries the data.
        await events.open(id, principal);
      } catch (err) {
        leave();
        throw err;
      }
    }
    c.header("Cache-Control", "no-store");
    c.header("X-Accel-Buffering", "no");
    return streamSSE(c, async (stream) => {
      stream.onAbort(end);
      const keepAlive = setInterval(() => void stream.write(": keep-alive\n\n"), keepAliveMs);
      try {
        while (!stream.aborted) {
          while (queue.length > 0 && !stream.aborted) await stream.writeSSE(queue.shift()!);
          if (ended) break;
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
      } finally {
        clearInterval(keepAlive);
        leave();
      }
    });
  };
}

function lastEventId(raw: string | undefined): number {
  if (raw === undefined || raw === "") return 0;
  if (!/^\d{1,15}$/.test(raw)) throw new RequestMalformedError({ where: "header last-event-id", problem: "must be the id of an event this stream sent" });
  return Number(raw);
}
