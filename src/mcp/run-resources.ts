import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  ErrorCode as RpcError,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { DurableAgentsError } from "../core/errors/base.js";
import { RequestMalformedError } from "../core/errors/http.js";
import type { Principal } from "../core/json.js";
import type { McpServerContext } from "./server-context.js";

type ReadState = (uri: string, principal: Principal | undefined) => Promise<{ runId: string; state: { status: string } }>;

/**
 * `run://<id>` resources: a run's live state (status, turns, usage, message count), read with
 * the caller's principal. On a long-lived connection (`stateful`), a subscription too.
 */
export function serveRunResources(context: McpServerContext, server: Server, principalOf: (extraAuth: unknown) => Principal | undefined, stateful: boolean): void {
  const { options, report } = context;
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [{ uriTemplate: "run://{runId}", name: "run", description: "A run's live state: status, turns, usage, message count", mimeType: "application/json" }],
  }));
  // Runs are not enumerable here (listing them is the operator's visibility, not a caller's).
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [] }));
  const readState = async (uri: string, principal: Principal | undefined) => {
    const runId = uri.startsWith("run://") ? decodeURIComponent(uri.slice("run://".length)) : "";
    if (runId === "" || runId.length > 1000) throw new McpError(RpcError.InvalidParams, new RequestMalformedError({ where: "params.uri", problem: "expected run://<runId>" }).message, { code: "AI1040" });
    try {
      const { recentMessages: _omit, ...state } = await options.agents.state({ runId, ...(principal ? { principal } : {}) });
      return { runId, state };
    } catch (err) {
      if (!DurableAgentsError.isDurableAgentsError(err)) report(err);
      const code = DurableAgentsError.isDurableAgentsError(err) ? err.code : "internal";
      throw new McpError(RpcError.InvalidParams, DurableAgentsError.isDurableAgentsError(err) ? err.message : "internal", { code });
    }
  };
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const { runId, state } = await readState(request.params.uri, principalOf(extra.authInfo));
    return { contents: [{ uri: request.params.uri, mimeType: "application/json", text: JSON.stringify({ runId, ...state }) }] };
  });
  if (stateful) watchRuns(context, server, readState, principalOf);
}

/**
 * `resources/subscribe` on `run://<id>`: one notification when the run finishes (completed
 * or failed), so a client that was told "deferred" learns when to read the outcome. The
 * wait is the run's result (a long poll on Temporal), not a poll loop; a subscription is
 * authorized (and the run must exist) when it is made.
 */
function watchRuns({ options, report }: McpServerContext, server: Server, readState: ReadState, principalOf: (extraAuth: unknown) => Principal | undefined) {
  const watches = new Map<string, AbortController>();
  server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    const uri = request.params.uri;
    const principal = principalOf(extra.authInfo);
    const { runId, state } = await readState(uri, principal);
    if (watches.has(uri)) return {};
    const stop = new AbortController();
    watches.set(uri, stop);
    const finished =
      state.status === "completed" || state.status === "failed"
        ? Promise.resolve()
        : options.agents.handle(runId, principal ? { principal } : {}).result().then(() => undefined, () => undefined);
    const aborted = new Promise<void>((resolve) => stop.signal.addEventListener("abort", () => resolve(), { once: true }));
    void Promise.race([finished, aborted]).then(async () => {
      if (stop.signal.aborted) return;
      watches.delete(uri);
      await server.sendResourceUpdated({ uri }).catch(report);
    });
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    watches.get(request.params.uri)?.abort();
    watches.delete(request.params.uri);
    return {};
  });
  const closed = server.onclose;
  server.onclose = () => {
    for (const w of watches.values()) w.abort();
    watches.clear();
    closed?.();
  };
}
