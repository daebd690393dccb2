/**
 * Host names and origins as the MCP server's DNS-rebinding check (host-check.ts) compares
 * them. Plain parsing with no imports: the CLI checks its --allowed-host and --allowed-origin
 * values with it before it loads the server.
 */

/** The names a local client reaches this machine by: always served. */
export const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"] as const;

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
