import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { DeferredAck } from "../core/deferral-record.js";
import { DurableAgentsError } from "../core/errors/base.js";
import type { Principal } from "../core/json.js";
import type { PreparedTool } from "./agent-tools.js";
import type { McpServerOptions } from "./options.js";
import { durationMs } from "../core/duration.js";

const ERROR_META_KEY = "durable-agents/error";

/** What every part of one MCP server shares: its options, its tools, and how it answers a deferral or a failure. */
export interface McpServerContext {
  readonly options: McpServerOptions;
  readonly tools: readonly PreparedTool[];
  /** Arguments larger than this (JSON bytes) are refused before anything starts. */
  readonly maxInputBytes: number;
  /** How often a call with a progress token hears that its run still works. */
  readonly progressIntervalMs: number;
  /** Where errors no caller should see go (`onError`, else the console). */
  readonly report: (err: unknown) => void;
  /** The acknowledgment a caller gets for a deferred run. */
  readonly ackOf: (runId: string, ack: DeferredAck) => DeferralAnswer;
  /** Emits `mcp:tool:deferred` once per deferral. */
  readonly announce: (tool: string, runId: string, ack: DeferredAck, principal: Principal | undefined) => void;
  /** A tool call's error answer: `isError`, the code in `_meta` (an unexpected error is reported and reads "internal"). */
  readonly failure: (err: unknown) => CallToolResult;
}

/** A deferral as a caller sees it (a type, not an interface: it is structured content, a plain record). */
export type DeferralAnswer = {
  status: "deferred";
  runId: string;
  deferralId: string;
  expiresAt: string;
  approvalUrl?: string;
  schema?: DeferredAck["schema"];
};

export function serverContext(options: McpServerOptions, tools: readonly PreparedTool[]): McpServerContext {
  const report = options.onError ?? ((err: unknown) => console.error("durable-agents/mcp:", err));
  // "Once": a retried call that attaches to the same parked run reports the same deferral;
  // it is announced the first time only (bounded, oldest forgotten first).
  const announced = new Set<string>();
  const announce = (tool: string, runId: string, ack: DeferredAck, principal: Principal | undefined) => {
    if (announced.has(ack.deferralId)) return;
    announced.add(ack.deferralId);
    if (announced.size > 10_000) announced.delete(announced.values().next().value!);
    try {
      options.on?.["mcp:tool:deferred"]?.({ type: "mcp:tool:deferred", tool, runId, deferralId: ack.deferralId, expiresAt: ack.expiresAt, ...(principal ? { principal } : {}) });
    } catch (err) {
      report(err);
    }
  };

  const ackOf = (runId: string, ack: DeferredAck): DeferralAnswer => {
    const url = options.approvalUrl?.({ runId, deferralId: ack.deferralId });
    // Built field by field: whatever else a settled state carries never reaches the caller.
    return {
      status: "deferred" as const,
      runId,
      deferralId: ack.deferralId,
      expiresAt: ack.expiresAt,
      ...(url ? { approvalUrl: url } : {}),
      ...(ack.schema ? { schema: ack.schema } : {}),
    };
  };

  const failure = (err: unknown): CallToolResult => {
    if (!DurableAgentsError.isDurableAgentsError(err)) {
      report(err);
      return { isError: true, content: [{ type: "text", text: "internal: the call failed unexpectedly" }], _meta: { [ERROR_META_KEY]: { code: "internal" } } };
    }
    return { isError: true, content: [{ type: "text", text: err.message }], _meta: { [ERROR_META_KEY]: { code: err.code, message: err.message } } };
  };

  return {
    options,
    tools,
    maxInputBytes: options.maxInputBytes ?? 256 * 1024,
    progressIntervalMs: options.progressInterval === undefined ? 10_000 : durationMs(options.progressInterval, "createMcpServer progressInterval", "10s"),
    report,
    ackOf,
    announce,
    failure,
  };
}
