import type { Duration } from "@temporalio/common";
import type { AgentClient } from "../client/agent-client.js";
import type { Principal } from "../core/json.js";
import type { ThreadsClient } from "../client/threads/threads-client.js";
import type { ApprovalPageOptions } from "./approval/options.js";
import type { CodecServerOptions } from "./codec-server.js";
import type { InboxPageOptions } from "./inbox/options.js";
import type { ConsolePageOptions } from "./console/options.js";

/** What `createAgentHttpHandler` takes. */
export interface AgentHttpOptions {
  /**
   * The client every run, deferral and resume route calls, as the authenticated principal:
   * its `authorize` hook decides each operation (and its deferral secret checks resumes);
   * the handler adds no authority of its own.
   */
  agents: AgentClient;
  /** The client of the thread routes. Default `agents.threads`; its `authorize` hook guards every thread route. */
  threads?: ThreadsClient;
  /**
   * Who is calling: read a session cookie, a bearer token, mTLS headers … and return the
   * principal, or `undefined` for an anonymous caller (the clients' authorize hooks then
   * decide). Throw a `DurableAgentsError` to refuse with its code; any other error is a 500.
   */
  authenticate: (request: Request) => Principal | undefined | Promise<Principal | undefined>;
  /** Where the routes are mounted, e.g. `"/api/agents"`. Default `""` (the root). */
  basePath?: string;
  /**
   * The server-rendered approval page at `GET /approve?token=…` (under `basePath`): what is
   * asked, the time left, and a form generated from the deferral's JSON Schema; `false`
   * leaves it out. Point the workers' `deferral.approvalUrl` at it.
   */
  approvalPage?: ApprovalPageOptions | false;
  /**
   * The server-rendered inbox at `GET /inbox` (under `basePath`): the waiting requests the
   * caller may see, each opened at `GET /inbox/:id` and decided there per call (approve,
   * edit, reject) by id, as the authenticated caller, through `agents.approvals.decide`;
   * the list updates itself. `false` leaves it out (the `/approvals` JSON routes stay).
   */
  inboxPage?: InboxPageOptions | false;
  /**
   * The console at `GET /console` (under `basePath`): the runs and threads of the client's
   * task queue, each opened at `/console/runs/:id` or `/console/threads/:id` as its
   * conversation beside a timeline read from its history, with cancel, send and a link to
   * decide in the inbox. Off by default; `true` or options serve it, to signed-in callers
   * only (AI1049, 401, for anyone `authenticate` returns no principal for), each row and
   * page asked of the clients' `authorize` hooks (docs/console.md).
   */
  console?: ConsolePageOptions | boolean;
  /** Largest request body accepted, in bytes; bigger ones are refused with AI1041 (413) before they are read. Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Origins allowed to send state-changing requests with form or text content types (the
   * approval form). Default: only the request's own origin. Set it when a proxy rewrites
   * the host the handler sees.
   */
  trustedOrigins?: string[];
  /**
   * A codec server for the Temporal UI and CLI at `POST /codec/encode` and `/codec/decode`
   * (under `basePath`), with its own CORS origins, body limit and `authorize` hook; the
   * front door's `authenticate` is not asked. Absent: no codec routes.
   */
  codec?: CodecServerOptions;
  /** `GET /threads/:id/events` and `GET /runs/:id/events`. */
  events?: EventStreamOptions;
  /** Called with errors that are not the SDK's typed errors (answered as 500 `internal`). Default: `console.error`. */
  onError?: (err: unknown) => void;
}

export interface EventStreamOptions {
  /** The shortest time between two looks of the one shared poller of a run or thread, which looks when its history moves (and every 2 s). Default `"100ms"`. */
  pollInterval?: Duration;
  /** Comment lines sent this often keep idle connections open through proxies. Default `"15s"`. */
  keepAliveInterval?: Duration;
}
