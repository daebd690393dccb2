/**
 * `durable-agents/http`: the HTTP front door, a fetch-standard handler built on Hono, serving
 * runs, deferrals, resumes, threads (with Server-Sent Events), the approvals inbox and the
 * approval page; and the codec server for the Temporal UI.
 *
 * @example
 * ```ts
 * import { serve } from "@hono/node-server";
 * import { createAgentHttpHandler } from "durable-agents/http";
 * import { agents, principalOf } from "./services.js";
 *
 * const handler = createAgentHttpHandler({
 *   agents,
 *   authenticate: async (request) => principalOf(request.headers.get("authorization")),
 *   basePath: "/agents",
 * });
 * serve({ fetch: handler, port: 8787 });
 * ```
 *
 * @packageDocumentation
 * @module durable-agents/http
 */
export { createAgentHttpHandler, buildApp, type AgentHttpHandler } from "./http/handler.js";
export type { AgentHttpOptions, EventStreamOptions } from "./http/options.js";
export type { ErrorBody } from "./http/errors.js";
export type { HttpEnv } from "./http/env.js";
export { approvalUrl } from "./deferral/approval-url.js";
export type { ApprovalPageOptions } from "./http/approval/options.js";
export type { ApprovalView, ApprovalState, ApprovalCallView, RenderHints, FieldHint } from "./http/approval/view.js";
export type { InboxPageOptions } from "./http/inbox/options.js";
export type { ConsolePageOptions } from "./http/console/options.js";
export { createCodecServer, codecApp, type CodecServerOptions, type CodecOperation, type CodecRequestInfo } from "./http/codec-server.js";
