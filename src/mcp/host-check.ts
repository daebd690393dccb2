/**
 * DNS-rebinding protection for MCP over HTTP. A web page on a foreign site can rebind its
 * own name to this machine's address and then talk to a local server from the victim's
 * browser; the browser then sends the foreign name as `Host` and the foreign site as
 * `Origin`. The MCP specification asks servers to validate `Origin`; the official SDK
 * checks `Host` names (its `hostHeaderValidation`, port-agnostic). We do both, on the
 * fetch-standard request, before anything else reads it.
 */
import { HostNotAllowedError } from "../core/errors/http.js";
import { InvalidDefinitionError } from "../core/errors/setup.js";
import { LOOPBACK_HOSTS, originOf, parseHost } from "./host-names.js";

// What a header value is echoed with in a refusal: enough to recognise it, never a large reflection.
const ECHO_CHARS = 200;

/** Who may reach an MCP server over HTTP, as `createMcpServer` takes it. */
export interface HostAllowList {
  allowedHosts?: string[];
  allowedOrigins?: string[];
}

/**
 * The check of one request: the refusal (AI1047) when its `Host` names a host not allowed,
 * or its `Origin` is neither allowed nor on an allowed host; `undefined` when it may go on.
 * Bad entries in the lists are AI1001 naming `subject`.
 */
export function hostCheck(lists: HostAllowList, subject: string): (request: Request) => HostNotAllowedError | undefined {
  const hosts = new Set<string>(LOOPBACK_HOSTS);
  for (const entry of lists.allowedHosts ?? []) {
    const parsed = typeof entry === "string" ? parseHost(entry) : undefined;
    if (!parsed || parsed.hasPort) {
      throw new InvalidDefinitionError({ subject, problem: `allowedHosts: ${JSON.stringify(entry)} is not a host name (give names without scheme or port, e.g. "mcp.example.com")` });
    }
    hosts.add(parsed.hostname);
  }
  const origins = new Set<string>();
  for (const entry of lists.allowedOrigins ?? []) {
    const origin = typeof entry === "string" ? originOf(entry) : undefined;
    if (!origin) throw new InvalidDefinitionError({ subject, problem: `allowedOrigins: ${JSON.stringify(entry)} is not an origin (scheme://host[:port], e.g. "https://app.example.com")` });
    origins.add(origin);
  }
  const refuse = (header: "host" | "origin", value: string | null) => new HostNotAllowedError({ header, ...(value !== null ? { value: value.slice(0, ECHO_CHARS) } : {}) });

  return (request) => {
    // A fetch-standard Request built by a Node server carries Host as a header; one built in
    // code (tests, other runtimes) may only have it in its URL.
    const host = request.headers.get("host") ?? safeHost(request.url);
    const hostname = host === null ? undefined : parseHost(host)?.hostname;
    if (!hostname || !hosts.has(hostname)) return refuse("host", host);
    // No Origin: not a browser (browsers send one on every cross-origin request and every POST).
    const origin = request.headers.get("origin");
    if (origin === null) return undefined;
    const normalized = originOf(origin);
    if (normalized && origins.has(normalized)) return undefined;
    const url = normalized && /^https?:/.test(normalized) ? new URL(normalized) : undefined;
    if (url && hosts.has(url.hostname)) return undefined;
    return refuse("origin", origin);
  };
}

function safeHost(url: string): string | null {
  try {
    return new URL(url).host || null;
  } catch {
    return null;
  }
}
