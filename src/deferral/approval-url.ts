import { InvalidDefinitionError } from "../core/errors/setup.js";

/**
 * The approval link for a resume token: `base` with the token as its `token` query
 * parameter, e.g. `approvalUrl("https://agents.example.com/approve", token)`. Pure; any
 * query the base already has is kept. The token is a capability: send the link only to
 * whoever may approve, and serve the page with `Referrer-Policy: no-referrer` (the HTTP
 * front door does).
 */
export function approvalUrl(base: string, token: string): string {
  const url = new URL(approvalUrlBase(base));
  url.searchParams.set("token", token);
  return url.toString();
}

/** Checks an approval base URL (absolute http or https, no fragment); AI1001 otherwise. */
export function approvalUrlBase(base: string): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new InvalidDefinitionError({ subject: "deferral.approvalUrl", problem: `${JSON.stringify(base)} is not an absolute URL` });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new InvalidDefinitionError({ subject: "deferral.approvalUrl", problem: "it must be an http or https URL" });
  }
  if (url.hash) throw new InvalidDefinitionError({ subject: "deferral.approvalUrl", problem: "it must not have a fragment" });
  return url.toString();
}
