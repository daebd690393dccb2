import type { MiddlewareHandler } from "hono";
import { NONCE, secureHeaders } from "hono/secure-headers";

/**
 * The headers of the front door's HTML pages (the approval page, the inbox): a CSP that
 * allows nothing but the page's own nonce-bearing style (and script, with `script: true`,
 * which may then fetch from the page's own origin) and forms posting to the same origin; no
 * framing, no referrer, no caching.
 */
export function pageHeaders(options: { script?: boolean } = {}): MiddlewareHandler[] {
  return [
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'none'"],
        styleSrc: [NONCE],
        ...(options.script ? { scriptSrc: [NONCE], connectSrc: ["'self'"] } : {}),
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
      referrerPolicy: "no-referrer",
      xFrameOptions: "DENY",
    }),
    async (c, next) => {
      await next();
      c.header("Cache-Control", "no-store");
    },
  ];
}
