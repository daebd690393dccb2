import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";

/** Where the console's nav is: the list of everything, of runs, of threads, or the approvals view. */
export type ConsoleSection = "all" | "runs" | "threads" | "approvals";

/** The console's nav: runs, threads and approvals, each one link, the current one marked for assistive tech (none on a run's or thread's page). */
export function consoleNav(base: string, current?: ConsoleSection): HtmlEscapedString | Promise<HtmlEscapedString> {
  const link = (section: ConsoleSection, href: string, text: string) => html`<a href="${href}"${current === section ? html` aria-current="page"` : ""}>${text}</a>`;
  return html`<nav class="console-nav" aria-label="Console">${link("all", base, "All")} ${link("runs", `${base}?kind=run`, "Runs")} ${link("threads", `${base}?kind=thread`, "Threads")} ${link("approvals", `${base}/approvals`, "Approvals")}</nav>`;
}

/** The nav's look, added to the console's style on the pages that carry it. */
export const NAV_STYLE = `
nav.console-nav{display:flex;gap:1rem;margin-bottom:.5rem}nav.console-nav a[aria-current=page]{font-weight:700;text-decoration:none}
`;
