import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";

/** The stop and resume forms of a running thread's turn (`threads.stopThread` / `resumeThread`). */
export interface TurnActions {
  stop: string;
  resume: string;
}

/** The deny form of the request a run or thread waits on (`deferrals.deny`), bound to that request's id. */
export interface DenyAction {
  action: string;
  deferralId: string;
  maxLength: number;
}

/** The console's action forms beside cancel and send: each posts as the signed-in caller (same-origin forms, CSRF-checked). */
export function actionForms(view: { turn?: TurnActions; deny?: DenyAction }): HtmlEscapedString | Promise<HtmlEscapedString> | string {
  if (!view.turn && !view.deny) return "";
  return html`<section class="actions" aria-label="Actions">
${
  view.turn
    ? html`<form method="post" action="${view.turn.stop}" class="actions"><button type="submit">Stop the turn</button></form>
<form method="post" action="${view.turn.resume}" class="actions"><button type="submit">Resume the turn</button></form>`
    : ""
}
${
  view.deny
    ? html`<form method="post" action="${view.deny.action}" class="send deny">
  <input type="hidden" name="deferralId" value="${view.deny.deferralId}">
  <label for="deny-reason">Reason to deny the request (the model reads it)</label>
  <textarea id="deny-reason" name="reason" rows="2" maxlength="${String(view.deny.maxLength)}" required></textarea>
  <button type="submit" class="danger">Deny the request</button>
</form>`
    : ""
}
</section>`;
}
