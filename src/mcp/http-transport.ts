import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { DurableAgentsError } from "../core/errors/base.js";
import type { Principal } from "../core/json.js";
import type { McpServerOptions } from "./options.js";

/**
 * Streamable HTTP, stateless: one request, one server. `build` makes a server that reads the
 * caller's principal from the transport's auth info.
 */
export async function answerHttp(
  request: Request,
  options: McpServerOptions,
  checkHost: (request: Request) => DurableAgentsError | undefined,
  build: (principalOf: (extraAuth: unknown) => Principal | undefined) => Server,
  report: (err: unknown) => void,
): Promise<Response> {
  // Before anything reads the request: a refused one authenticates, starts and reads nothing.
  const refused = checkHost(request);
  if (refused) return rpcRefusal(refused, 403);
  // Stateless: nothing can reach a client between its requests, so there is no standalone
  // event stream to GET (405 is the protocol's way to say so) and no session to DELETE.
  if (request.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST" } });
  const principal = options.authenticate ? await options.authenticate(request) : undefined;
  // A server and transport per request, so nothing lives between requests and any replica
  // can answer; the revision travels in the mcp-protocol-version header. Answers stream
  // as Server-Sent Events so progress notifications reach the caller while a run works.
  const server = build((auth) => (auth as { extra?: { principal?: Principal } } | undefined)?.extra?.principal);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  const close = () => void server.close().catch(report);
  let response: Response;
  try {
    response = await transport.handleRequest(request, { authInfo: { token: "", clientId: principal?.id ?? "anonymous", scopes: [], extra: principal ? { principal } : {} } });
  } catch (err) {
    close();
    throw err;
  }
  if (!response.body) {
    close();
    return response;
  }
  // The server lives as long as its answer streams: closed once the body ends or the caller leaves.
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (!done) return controller.enqueue(value);
      controller.close();
      close();
    },
    async cancel(reason) {
      await reader.cancel(reason).catch(() => undefined);
      close();
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** An HTTP refusal with a JSON-RPC error body (no request id is known yet), its code in `data.code` as elsewhere. */
function rpcRefusal(err: DurableAgentsError, status: number): Response {
  const body = { jsonrpc: "2.0", error: { code: -32000, message: err.message, data: { code: err.code } }, id: null };
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}
