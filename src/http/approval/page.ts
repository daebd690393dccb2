import { html, raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { RunOutcome } from "../../core/deferral-record.js";
import { oneLine, printable, printableJson } from "../../core/printable.js";
import { renderCalls } from "./calls-form.js";
import { renderWhyAsked, WHY_ASKED_STYLE } from "./context-view.js";
import { renderFields } from "./render-form.js";
import { rootSchema } from "./schema.js";
import type { ApprovalView } from "./view.js";

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/**
 * The built-in approval page: plain HTML and CSS, no script, every control labelled.
 * `back`: a link above the heading, and `headings` for its states (the inbox shows its
 * requests on this page, where there is no link to speak of).
 */
export async function renderPage(view: ApprovalView, extras: { back?: { href: string; label: string }; headings?: Partial<typeof HEADINGS> } = {}): Promise<string> {
  const body =
    view.state === "form"
      ? form(view)
      : html`<section class="state state-${view.state}" role="status">
          <h2>${extras.headings?.[view.state] ?? HEADINGS[view.state]}</h2>
          ${view.message ? html`<p>${view.message}</p>` : ""}
          ${view.outcome ? outcome(view.outcome) : ""}
          ${view.code ? html`<p class="code">Code: <code>${view.code}</code></p>` : ""}
        </section>`;
  // The title and description may be built from the model's arguments (meta): shown with their controls escaped, as the arguments are.
  const title = oneLine(view.title);
  return htmlDocument({
    title,
    nonce: view.nonce,
    main: html`${extras.back ? html`<p class="back"><a href="${extras.back.href}">${extras.back.label}</a></p>` : ""}
<h1>${title}</h1>
${view.description ? html`<p class="description">${printable(view.description)}</p>` : ""}
${details(view)}
${view.state === "form" ? renderWhyAsked(view) : ""}
${body}`,
  });
}

/** A whole page of the front door: the shared style under the CSP nonce, `main`, and what follows it (a nonce-bearing script). */
export async function htmlDocument(parts: { title: string; nonce: string | undefined; main: Html; style?: string; after?: Html }): Promise<string> {
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${parts.title}</title>
<style nonce="${parts.nonce ?? ""}">${raw(STYLE)}${raw(WHY_ASKED_STYLE)}${raw(parts.style ?? "")}</style>
</head>
<body>
<main>
${parts.main}
</main>
${parts.after ?? ""}
</body>
</html>`;
  return String(await page);
}

const HEADINGS: Record<Exclude<ApprovalView["state"], "form">, string> = {
  outcome: "Thank you: your answer was accepted",
  answered: "Already answered",
  expired: "This approval link has expired",
  denied: "This request was withdrawn",
  refused: "You may not answer this request",
  invalid: "This link is not valid",
  missing: "Nothing is waiting for this link",
  error: "Something went wrong",
};

function details(view: ApprovalView) {
  if (!view.agentId && !view.toolName) return "";
  return html`<dl class="details">
    ${view.agentId ? html`<dt>Agent</dt><dd>${view.agentId}</dd>` : ""}
    ${view.toolName ? html`<dt>Asked by</dt><dd><code>${view.toolName}</code></dd>` : ""}
    ${view.arguments !== undefined ? html`<dt>With</dt><dd><pre>${printableJson(JSON.stringify(view.arguments, null, 2))}</pre></dd>` : ""}
    ${view.expiresAt && view.state === "form" ? html`<dt>Time left</dt><dd><time datetime="${view.expiresAt}">${timeLeft(view.msLeft ?? 0)}</time> (until ${view.expiresAt})</dd>` : ""}
  </dl>`;
}

function form(view: ApprovalView) {
  return html`<form method="post" action="${view.action}" novalidate>
    ${view.errors.length > 0 ? html`<div class="errors" role="alert" tabindex="-1"><h2>Please check your answer</h2><ul>${view.errors.map((e) => html`<li>${e}</li>`)}</ul></div>` : ""}
    ${Object.entries(view.hidden).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
    ${view.calls ? renderCalls(view.calls, view.values) : renderFields(rootSchema(view.schema), view.hints, view.values)}
    <button type="submit">${view.calls ? "Submit decisions" : "Submit answer"}</button>
  </form>`;
}

function outcome(o: RunOutcome) {
  switch (o.status) {
    case "completed": {
      const text = (o.result as { text?: unknown } | undefined)?.text;
      return html`<p>The run continued and completed.</p>${typeof text === "string" ? html`<blockquote>${printable(text)}</blockquote>` : ""}`;
    }
    case "failed":
      return html`<p>The run continued and then failed${o.error.code ? html` (<code>${o.error.code}</code>)` : ""}: ${printable(o.error.message)}</p>`;
    case "deferred":
      return html`<p>The run continued and is now waiting for another decision.</p>`;
    case "needs-compaction":
      return html`<p>The answer was accepted; the run waits for its conversation to be compacted before it continues.</p>`;
    case "accepted":
      return html`<p>The conversation goes on with the decision.</p>`;
    case "running":
      return html`<p>The run continued.</p>`;
  }
}

/** "2 days 4 hours", "35 minutes", "less than a minute". */
export function timeLeft(ms: number): string {
  if (ms <= 0) return "none";
  const minutes = Math.floor(ms / 60_000);
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const mins = minutes % 60;
  const part = (n: number, unit: string) => (n > 0 ? `${n} ${unit}${n === 1 ? "" : "s"}` : "");
  if (days > 0) return [part(days, "day"), part(hours, "hour")].filter(Boolean).join(" ");
  if (hours > 0) return [part(hours, "hour"), part(mins, "minute")].filter(Boolean).join(" ");
  return mins > 0 ? part(mins, "minute") : "less than a minute";
}

/** The pages' style sheet (the inbox's too), sent inline under the CSP nonce. */
export const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1b1f24}
main{max-width:42rem;margin:2rem auto;padding:1.5rem 2rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px #0002}
h1{font-size:1.5rem;margin-top:0}
dl.details{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}
dt{font-weight:600}dd{margin:0}pre{margin:0;white-space:pre-wrap;background:#f0f2f5;padding:.5rem;border-radius:4px}
fieldset{border:1px solid #ccd;border-radius:6px;margin:1rem 0;padding:.5rem 1rem}
legend{font-weight:600}.field{margin:1rem 0}.field label{display:block;font-weight:600}
.choice div{margin:.25rem 0}.choice label{margin-left:.4rem}
input[type=text],input[type=email],input[type=url],input[type=number],input[type=date],input[type=datetime-local],input[type=time],select,textarea{width:100%;box-sizing:border-box;font:inherit;padding:.4rem;border:1px solid #889;border-radius:4px}
:focus-visible{outline:3px solid #1a5fd0;outline-offset:2px}
.help,.bounds{color:#4a5360;font-weight:normal}.req{color:#a1261b;font-weight:normal}
button{font:inherit;padding:.6rem 1.4rem;border:0;border-radius:6px;background:#1a5fd0;color:#fff;cursor:pointer}
.errors{border:2px solid #a1261b;border-radius:6px;padding:0 1rem;margin-bottom:1rem}
.state-outcome h2,.state-answered h2{color:#18642f}.state h2{font-size:1.2rem}
blockquote{margin:1rem 0;padding:.5rem 1rem;border-left:4px solid #1a5fd0;background:#f0f4fb}
fieldset.call{border-color:#99a;padding:.5rem 1rem 1rem}fieldset.call>legend{font-size:1.1rem}
details{margin:.5rem 0}summary{cursor:pointer;font-weight:600}.back{margin:0 0 1rem}
code.key+.title{font-weight:normal;color:#4a5360}
`;
