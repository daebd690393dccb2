import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { csrf } from "hono/csrf";
import { RequestTooLargeError, RouteNotFoundError } from "../core/errors/http.js";
import { approvalRoutes } from "./approval/routes.js";
import { approvalInboxRoutes } from "./approvals.js";
import { permissionRoutes } from "./permissions.js";
import { codecApp } from "./codec-server.js";
import { deferralRoutes } from "./deferrals.js";
import type { HttpEnv } from "./env.js";
import { errorResponse, internalErrorResponse, typedError } from "./errors.js";
import { inboxPageRoutes } from "./inbox/routes.js";
import { consoleRoutes } from "./console/routes.js";
import type { AgentHttpOptions } from "./options.js";
import { runRoutes } from "./runs.js";
import { scheduleRoutes } from "./schedules.js";
import { threadRoutes } from "./threads.js";

/** A fetch-standard request handler: mounts on Node, Bun, Deno, Next.js route handlers, or Express through an adapter. */
export type AgentHttpHandler = (request: Request) => Promise<Response>;

const MiB = 1024 * 1024;

/**
 * The HTTP front door: runs, deferrals, resume, the approvals inbox, threads (with an SSE
 * event stream), agent schedules, the approval page and the inbox page, as a `(Request) => Promise<Response>` handler. It authenticates each
 * request, then calls the clients, whose `authorize` hooks decide; it adds no authority of
 * its own. Errors answer `{ error: { code, message } }` with the code table's status.
 */
export function createAgentHttpHandler(options: AgentHttpOptions): AgentHttpHandler {
  const app = buildApp(options);
  return async (request) => app.fetch(request);
}

/** The Hono app behind the handler, for mounting into an existing Hono app with `app.route()`. */
export function buildApp(options: AgentHttpOptions): Hono<HttpEnv> {
  const maxBodyBytes = options.maxBodyBytes ?? MiB;
  const threads = options.threads ?? options.agents.threads;
  const report = options.onError ?? ((err: unknown) => console.error("durable-agents/http:", err));
  const app = new Hono<HttpEnv>().basePath(options.basePath ?? "");

  app.onError((err, c) => {
    const typed = typedError(err, c, maxBodyBytes);
    if (typed) return errorResponse(c, typed);
    report(err);
    return internalErrorResponse(c);
  });
  app.notFound((c) => errorResponse(c, new RouteNotFoundError({ method: c.req.method, path: new URL(c.req.url).pathname })));

  // Before the front door's body limit, CSRF check and authenticate: the codec server has
  // its own (a CORS preflight carries no credentials, and its auth hook reads the request).
  if (options.codec) app.route("/codec", codecApp(options.codec));
  app.use(
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: () => {
        throw new RequestTooLargeError({ limitBytes: maxBodyBytes });
      },
    }),
  );
  // A form or text POST is what another site can send without a CORS preflight (other
  // methods and JSON bodies need one): those must come from our own origin (Origin or
  // Sec-Fetch-Site), so API clients POST with `Content-Type: application/json`.
  const sameSite = csrf({ ...(options.trustedOrigins ? { origin: (origin, c) => origin === new URL(c.req.url).origin || options.trustedOrigins!.includes(origin) } : {}) });
  app.use((c, next) => (c.req.method === "POST" ? sameSite(c, next) : next()));
  app.use(async (c, next) => {
    c.set("principal", await options.authenticate(c.req.raw));
    await next();
  });

  app.route("/runs", runRoutes(options.agents, options.events ?? {}));
  app.route("/", deferralRoutes(options.agents));
  app.route("/approvals", approvalInboxRoutes(options.agents));
  app.route("/permissions", permissionRoutes(options.agents));
  app.route("/threads", threadRoutes(threads, options.events ?? {}));
  app.route("/schedules", scheduleRoutes(options.agents));
  if (options.approvalPage !== false) app.route("/approve", approvalRoutes(options.agents, options.approvalPage ?? {}));
  if (options.inboxPage !== false) app.route("/inbox", inboxPageRoutes(options.agents, options.inboxPage ?? {}));
  // Off unless asked for: who may look at every run is the operator's decision (docs/security.md).
  if (options.console) app.route("/console", consoleRoutes(options.agents, threads, options.console === true ? {} : options.console, { inbox: options.inboxPage !== false }));
  return app;
}
