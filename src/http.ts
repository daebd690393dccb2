// `durable-agents/http`: the HTTP front door, a fetch-standard handler built on Hono.
export { createAgentHttpHandler, buildApp, type AgentHttpHandler } from "./http/handler.js";
export type { AgentHttpOptions, EventStreamOptions } from "./http/options.js";
export type { ErrorBody } from "./http/errors.js";
export { approvalUrl } from "./deferral/approval-url.js";
export type { ApprovalPageOptions } from "./http/approval/options.js";
export type { ApprovalView, ApprovalState, ApprovalCallView, RenderHints, FieldHint } from "./http/approval/view.js";
export type { InboxPageOptions } from "./http/inbox/options.js";
export { createCodecServer, codecApp, type CodecServerOptions, type CodecOperation, type CodecRequestInfo } from "./http/codec-server.js";
