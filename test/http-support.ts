/**
 * HTTP test plumbing: the front door on a real Node HTTP server (@hono/node-server, the
 * adapter the README shows), callers named by an `x-user` header, and a fetch helper.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createAgentHttpHandler, type AgentHttpOptions } from "../src/http.js";
import type { Principal } from "../src/index.js";

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

/** The approval rule of the payouts fixture: every role the deferral's meta requires. */
export const requiresRoles = ({ principal, record }: { principal: Principal | undefined; record: { meta: Record<string, unknown> } }) =>
  ((record.meta.requires as string[] | undefined) ?? []).every((role) => ((principal?.roles as string[] | undefined) ?? []).includes(role));

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
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { ...(sendsBody ? { "content-type": "application/json" } : {}), ...(user ? { "x-user": user } : {}), ...headers },
        ...(sendsBody ? { body: raw ?? JSON.stringify(body) } : {}),
      });
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
