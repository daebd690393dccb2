import { createHash } from "node:crypto";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { ErrorCode as RpcError, McpError, type CallToolRequest, type CallToolResult, type ServerNotification, type ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import type { DeferredAck } from "../core/deferral-record.js";
import { McpOutputInvalidError, RequestMalformedError } from "../core/errors/http.js";
import type { Principal } from "../core/json.js";
import type { AgentResult } from "../core/run-state.js";
import { APPROVAL_TOOL_NAMES, GET_RUN, parseOutput, promptFor } from "./agent-tools.js";
import { callApprovalTool } from "./approval-tools.js";
import { structured } from "./schemas.js";
import type { McpServerContext } from "./server-context.js";

/** Where a caller may pass a key that makes a call idempotent across retries. */
export const IDEMPOTENCY_META_KEY = "durable-agents/idempotencyKey";

/** A request's context as the SDK hands it to a handler. */
export type HandlerExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * A `tools/call`: `get_run`, or an agent tool, which starts a run (or attaches to the one its
 * idempotency key names) and answers when it settles: the answer, the deferral acknowledgment,
 * or the error with its code.
 */
export async function callTool(context: McpServerContext, request: CallToolRequest, extra: HandlerExtra, principal: Principal | undefined, envelope: boolean): Promise<CallToolResult> {
  const { options, tools, failure, maxInputBytes, progressIntervalMs } = context;
  const { name, arguments: args } = request.params;
  if (name === GET_RUN) return getRun(context, args, principal, extra);
  if (options.approvals === true && APPROVAL_TOOL_NAMES.includes(name)) return callApprovalTool(context, name, args, principal);
  const tool = tools.find((t) => t.options.name === name);
  if (!tool) {
    const err = new RequestMalformedError({ where: "params.name", problem: `no tool named ${JSON.stringify(String(name).slice(0, 80))}` });
    throw new McpError(RpcError.InvalidParams, err.message, { code: err.code });
  }
  const bytes = Buffer.byteLength(JSON.stringify(args ?? {}), "utf8");
  if (bytes > maxInputBytes) {
    return failure(new RequestMalformedError({ where: "params.arguments", problem: `${bytes} bytes, over the limit of ${maxInputBytes}; nothing was started` }));
  }
  const checked = await tool.input["~standard"].validate(args ?? {});
  if (checked.issues) {
    const problem = checked.issues.map((i) => `${(i.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join(".") || "(root)"}: ${i.message}`).join("; ");
    return failure(new RequestMalformedError({ where: "params.arguments", problem: `${problem}; nothing was started` }));
  }
  const input = checked.value;
  const runId = runIdFor(name, principal, request.params._meta?.[IDEMPOTENCY_META_KEY], extra.sessionId, extra.requestId);
  let settled: AgentResult | DeferredAck;
  let startedId: string;
  const heartbeat = progress(extra, progressIntervalMs, "the run is working");
  try {
    const prompt = promptFor(tool, input);
    const handle = await options.agents.start(tool.options.agent, { prompt, ...(runId ? { runId } : {}), ...(principal ? { principal } : {}) });
    startedId = handle.runId;
    settled = await handle.settled();
  } catch (err) {
    return failure(err);
  } finally {
    clearInterval(heartbeat);
  }
  if (settled.status === "deferred") {
    const ack = context.ackOf(startedId, settled);
    context.announce(name, startedId, settled, principal);
    return { content: [{ type: "text", text: JSON.stringify(ack) }], structuredContent: structured(ack, envelope), isError: false };
  }
  if (!tool.output) {
    const value = { status: "completed", text: settled.text };
    return { content: [{ type: "text", text: settled.text }], structuredContent: structured(value, envelope) };
  }
  const answer = await parseOutput(tool, startedId, settled.text);
  if (answer instanceof McpOutputInvalidError) return failure(answer);
  return { content: [{ type: "text", text: JSON.stringify(answer) }], structuredContent: structured(answer, envelope) };
}

/**
 * `get_run`: waits for a run to settle again, past the deferral the caller names (the
 * acknowledgment's `deferralId`) or else past the one it waits on when asked, and answers
 * its outcome. A caller that sent a progress token hears from us while it waits.
 */
async function getRun(
  { options, ackOf, failure, progressIntervalMs }: McpServerContext,
  args: Record<string, unknown> | undefined,
  principal: Principal | undefined,
  extra: HandlerExtra,
): Promise<CallToolResult> {
  const runId = args?.runId;
  if (typeof runId !== "string" || runId === "" || runId.length > 1000) {
    return failure(new RequestMalformedError({ where: "params.arguments.runId", problem: "a run id (a non-empty string) is required" }));
  }
  const deferralId = args?.deferralId;
  if (deferralId !== undefined && (typeof deferralId !== "string" || deferralId === "" || deferralId.length > 1000)) {
    return failure(new RequestMalformedError({ where: "params.arguments.deferralId", problem: "the deferralId of an acknowledgment (a non-empty string), or none" }));
  }
  const heartbeat = progress(extra, progressIntervalMs, "waiting for the run to settle again");
  try {
    const settled = await options.agents.handle(runId, principal ? { principal } : {}).settled({ after: deferralId ?? "current" });
    const value = settled.status === "deferred" ? ackOf(runId, settled) : { runId, status: "completed" as const, text: settled.text };
    return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
  } catch (err) {
    return failure(err);
  } finally {
    clearInterval(heartbeat);
  }
}

/**
 * Progress notifications every `intervalMs` for a caller that sent a progress token, so its
 * request timeout (the SDK's resets on progress) need not cover the whole wait. Clear it
 * when the answer is ready.
 */
function progress(extra: HandlerExtra, intervalMs: number, message: string): ReturnType<typeof setInterval> | undefined {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return undefined;
  let beats = 0;
  return setInterval(() => {
    beats += 1;
    void extra.sendNotification({ method: "notifications/progress", params: { progressToken, progress: beats, message } }).catch(() => undefined);
  }, intervalMs);
}

/**
 * The run id of a call, so a retried call attaches to its run instead of starting another:
 * from the caller's idempotency key (`_meta`), or from the session and JSON-RPC request id
 * where the transport has a session. Scoped to the principal and the tool, so two callers'
 * keys never meet. Undefined (a fresh run) when the protocol gives nothing stable.
 */
function runIdFor(tool: string, principal: Principal | undefined, key: unknown, sessionId: string | undefined, requestId: string | number): string | undefined {
  const stable = typeof key === "string" && key !== "" && key.length <= 1000 ? ["key", key] : sessionId ? ["session", sessionId, String(requestId)] : undefined;
  if (!stable) return undefined;
  const digest = createHash("sha256").update(JSON.stringify([principal?.id ?? null, tool, ...stable])).digest("hex").slice(0, 32);
  return `mcp-${digest}`;
}
