/**
 * DNS-rebinding protection for MCP over HTTP. A web page on a foreign site can rebind its
 * own name to this machine's address and then talk to a local server from the victim's
 * browser; the browser then sends the foreign name as `Host` and the foreign site as
 * `Origin`. The MCP specification asks servers to validate `Origin`; the official SDK
 * checks `Host` names (its `hostHeaderValidation`, port-agnostic). We do both, on the
 * fetch-standard request, before anything else reads it.
 */
import { HostNotAllowedError } from "../core/errors/host-not-allowed.js";
import { InvalidDefinitionError } from "../core/errors/invalid-definition.js";

/** The names a local client reaches this machine by: always served. */
export const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"] as const;

// What a header value is echoed with in a refusal: enough to recognise it, never a large reflection.
const ECHO_CHARS = 200;

/**
 * A host as it is compared: its name in lower case, IPv6 in brackets, IDN in punycode, and
 * whether a port was written. `undefined` when `value` is not a host (a scheme, a path, user
 * info, a wildcard).
 */
export function parseHost(value: string): { hostname: string; hasPort: boolean } | undefined {
  const trimmed = value.trim();
  if (trimmed === "" || /[/?#@\\\s*]/.test(trimmed)) return undefined;
  // A bare IPv6 address (`::1`) has no port and is written with brackets in URLs and Host headers.
  const bareIpv6 = !trimmed.startsWith("[") && trimmed.split(":").length > 2;
  const hasPort = bareIpv6 ? false : /:\d*$/.test(trimmed.replace(/^\[[^\]]*\]/, ""));
  try {
    const hostname = new URL(`http://${bareIpv6 ? `[${trimmed}]` : trimmed}`).hostname;
    return hostname ? { hostname, hasPort } : undefined;
  } catch {
    return undefined;
  }
}

/** An origin as it is compared (`scheme://host[:port]`, lower case, default port dropped); `undefined` when `value` is not one. */
export function originOf(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return undefined;
  }
  if (url.username || url.password || url.search || url.hash || (url.pathname !== "/" && url.pathname !== "")) return undefined;
  // Node gives opaque origins ("null") for schemes other than http(s), ws(s), ftp and file: an
  // extension's origin (chrome-extension://id) is then compared as written.
  return url.origin !== "null" ? url.origin : `${url.protocol}//${url.host}`.toLowerCase();
}

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
