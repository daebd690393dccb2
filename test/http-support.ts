/**
 * HTTP test plumbing: the front door on a real Node HTTP server (@hono/node-server, the
 * adapter the README shows), callers named by an `x-user` header, and a fetch helper.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createAgentHttpHandler, type AgentHttpOptions } from "../src/http.js";
import type { AuthorizeHook, Principal } from "../src/index.js";

/** Who the test's callers are: `x-user: fiona` authenticates as fiona; no header is anonymous. */
export const PEOPLE: Record<string, Principal> = {
  fiona: { id: "fiona", roles: ["payouts:approve"] },
  ian: { id: "ian", roles: [] },
  alice: { id: "alice", roles: [] },
  bob: { id: "bob", roles: [] },
};

export const authenticate = (request: Request): Principal | undefined => {
  const user = request.headers.get("x-user");
  return user ? PEOPLE[user] : undefined;
};

/** The approval rule of the payouts fixture: a resume needs every role the deferral's meta requires; everything else is open. */
export const requiresRoles: AuthorizeHook = (request) =>
  request.operation !== "resume" ||
  ((request.deferral.meta.requires as string[] | undefined) ?? []).every((role) => ((request.principal?.roles as string[] | undefined) ?? []).includes(role));

export interface HttpServer {
  url: string;
  /** JSON in, JSON out; `raw` sends the body as given. */
  call(method: string, path: string, options?: { user?: string; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

export async function startHttp(options: Omit<AgentHttpOptions, "authenticate"> & Partial<Pick<AgentHttpOptions, "authenticate">>): Promise<HttpServer> {
  const handler = createAgentHttpHandler({ authenticate, ...options });
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: handler, port: 0, hostname: "127.0.0.1" }, () => resolve(s as Server));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${options.basePath ?? ""}`;
  return {
    url,
    async call(method, path, { user, body, raw, headers = {} } = {}) {
      const sendsBody = raw !== undefined || body !== undefined;
      const send = () =>
        fetch(`${url}${path}`, {
          method,
          headers: { ...(sendsBody ? { "content-type": "application/json" } : {}), ...(user ? { "x-user": user } : {}), ...headers },
          ...(sendsBody ? { body: raw ?? JSON.stringify(body) } : {}),
        });
      let response: Response;
      try {
        response = await send();
      } catch (err) {
        // A server that answered an oversized body early (413) closes that connection; fetch may
        // have pooled it for this request meanwhile and finds it closed before anything was
        // sent back. That is the test's transport, not the route: ask once more on a fresh one.
        if ((err as { cause?: { code?: string } }).cause?.code !== "UND_ERR_SOCKET") throw err;
        response = await send();
      }
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: the test looks at the text
      }
      return { status: response.status, body: parsed, headers: response.headers };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One Server-Sent Event as a browser's EventSource would see it. */
export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

/** An open `text/event-stream` response, read event by event. */
export interface EventReader {
  status: number;
  /** Errors answered before the stream started (JSON). */
  errorBody?: any;
  /** Every event received so far, in order. */
  events: SseEvent[];
  /** Resolves once an event matching `test` has arrived (or rejects when the stream ends first). */
  until(test: (event: SseEvent, all: SseEvent[]) => boolean): Promise<SseEvent>;
  /** Hangs up, as a closed browser tab does. */
  close(): void;
  /** Resolves when the stream ended (server closed or close()). */
  ended: Promise<void>;
}

export async function openEvents(url: string, options: { user?: string; lastEventId?: string } = {}): Promise<EventReader> {
  const ac = new AbortController();
  const response = await fetch(url, {
    signal: ac.signal,
    headers: { accept: "text/event-stream", ...(options.user ? { "x-user": options.user } : {}), ...(options.lastEventId ? { "last-event-id": options.lastEventId } : {}) },
  });
  const events: SseEvent[] = [];
  const waiters = new Set<() => void>();
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) {
    const errorBody = await response.json().catch(() => undefined);
    return { status: response.status, errorBody, events, until: () => Promise.reject(new Error("no stream")), close: () => ac.abort(), ended: Promise.resolve() };
  }
  let done = false;
  const ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event: SseEvent = { event: "message", data: "" };
          const data: string[] = [];
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) continue;
            const [field, ...rest] = line.split(":");
            const value = rest.join(":").replace(/^ /, "");
            if (field === "id") event.id = value;
            if (field === "event") event.event = value;
            if (field === "data") data.push(value);
          }
          if (data.length === 0) continue;
          event.data = data.join("\n");
          events.push(event);
          for (const wake of waiters) wake();
        }
      }
    } catch {
      // aborted by close()
    } finally {
      done = true;
      for (const wake of waiters) wake();
    }
  })();
  return {
    status: response.status,
    events,
    ended,
    close: () => ac.abort(),
    until(test) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = events.find((e) => test(e, events));
          if (found) {
            waiters.delete(check);
            resolve(found);
          } else if (done) {
            waiters.delete(check);
            reject(new Error(`the stream ended first; it sent ${JSON.stringify(events.slice(-5))}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
  };
}
