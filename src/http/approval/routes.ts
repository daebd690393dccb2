import { createHash } from "node:crypto";
import { Hono, type Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { z } from "zod";
import type { AgentClient } from "../../client/agent-client.js";
import type { DeferralRecord } from "../../core/deferral-record.js";
import { DurableAgentsError } from "../../core/errors/base.js";
import { ErrorCode } from "../../core/errors/codes.js";
import type { JsonValue } from "../../core/json.js";
import type { HttpEnv } from "../env.js";
import { pageHeaders } from "../page-headers.js";
import { valid } from "../validate.js";
import { callViews, readDecisions } from "./calls-form.js";
import { FormBody, submitted } from "./form-body.js";
import type { ApprovalPageOptions } from "./options.js";
import { renderPage } from "./page.js";
import { previewResume } from "./preview.js";
import { readAnswer } from "./read-form.js";
import { rootSchema } from "./schema.js";
import type { ApprovalView } from "./view.js";
import { answeredView, changedView, formView, refusalView, stateView, type ViewParts } from "./view-parts.js";

type Env = HttpEnv & { Variables: { secureHeadersNonce?: string } };

/**
 * `GET /approve?token=…` moves the token into an HttpOnly cookie named after its hash and
 * redirects to `?ref=<hash>`, so the token leaves the address bar, the history and every
 * later request line; `GET /approve?ref=…` shows the page; the form posts back to
 * `POST /approve`. The global CSRF check refuses a form posted from another site.
 */
export function approvalRoutes(agents: AgentClient, options: ApprovalPageOptions) {
  const app = new Hono<Env>();
  app.use(...pageHeaders());

  app.get("/", valid("query", z.object({ token: z.string().max(4096).optional(), ref: z.string().regex(/^[A-Za-z0-9_-]{16}$/).optional() })), async (c) => {
    const { token, ref } = c.req.valid("query");
    if (token !== undefined) {
      const hash = refOf(token);
      setCookie(c, cookieName(hash), token, { httpOnly: true, sameSite: "Lax", secure: new URL(c.req.url).protocol === "https:", path: c.req.path, maxAge: 24 * 3600 });
      return c.redirect(`${c.req.path}?ref=${hash}`, 303);
    }
    const saved = ref ? getCookie(c, cookieName(ref)) : undefined;
    if (!saved || !ref) return page(c, options, stateView("invalid", 401, { message: "Open the link from your message again (this browser does not hold it)." }), ref);
    const preview = await previewResume(agents, saved, c.get("principal"));
    if (preview.kind === "live") return page(c, options, formView(preview.record, {}, []), ref);
    if (preview.kind === "answered") return page(c, options, answeredView(preview.result, "answered"), ref);
    return page(c, options, refusalView(preview.error), ref);
  });

  app.post("/", valid("form", FormBody), async (c) => {
    const values = submitted(c.req.valid("form"));
    const ref = values.ref?.[0];
    const token = ref && /^[A-Za-z0-9_-]{16}$/.test(ref) ? getCookie(c, cookieName(ref)) : undefined;
    if (!token || !ref) return page(c, options, stateView("invalid", 401, { message: "Open the link from your message again (this browser does not hold it)." }), ref);
    const principal = c.get("principal");
    const preview = await previewResume(agents, token, principal);
    if (preview.kind === "answered") return page(c, options, answeredView(preview.result, "answered"), ref);
    if (preview.kind === "refused") return page(c, options, refusalView(preview.error), ref);
    // The answer is bound to the call this form showed: a form that showed another (or
    // none: a page rendered without the field) is shown again with the call as it is now.
    const current = preview.record.callFingerprint;
    const shown = values.shown?.[0];
    if (current !== undefined && shown !== current) return page(c, options, changedView(preview.record, values), ref);
    const { value, problems } = answerOf(preview.record, values);
    if (problems.length > 0 || value === undefined) {
      return page(c, options, { ...formView(preview.record, values, problems.length > 0 ? problems : ["Give an answer."]), status: 400 }, ref);
    }
    try {
      const result = await agents.resume({ token, payload: value, ...(current !== undefined ? { shown: current } : {}), ...(principal ? { principal } : {}) });
      return page(c, options, answeredView(result, result.status === "duplicate" ? "answered" : "outcome"), ref);
    } catch (err) {
      if (DurableAgentsError.isDurableAgentsError(err) && (err.code === ErrorCode.ResumePayloadInvalid || err.code === ErrorCode.NotPlainJson)) {
        return page(c, options, { ...formView(preview.record, values, [err.message]), status: 400 }, ref);
      }
      if (DurableAgentsError.isDurableAgentsError(err) && err.code === ErrorCode.DeferralChanged) {
        const again = await previewResume(agents, token, principal);
        if (again.kind === "live") return page(c, options, changedView(again.record, values), ref);
        return page(c, options, again.kind === "answered" ? answeredView(again.result, "answered") : refusalView(again.error), ref);
      }
      if (DurableAgentsError.isDurableAgentsError(err)) return page(c, options, refusalView(err), ref);
      throw err;
    }
  });
  return app;
}

/** The resume payload a submitted form stands for: the answer its schema describes, or an approval request's `{ decisions }`. */
function answerOf(record: DeferralRecord, values: Record<string, string[]>): { value: JsonValue | undefined; problems: string[] } {
  if (!record.approval) return readAnswer(rootSchema(record.schema), values);
  const { decisions, problems } = readDecisions(callViews(record.approval.calls, record.approval.decided), values);
  return { value: { decisions } as unknown as JsonValue, problems };
}

const refOf = (token: string) => createHash("sha256").update(token).digest("base64url").slice(0, 16);
const cookieName = (ref: string) => `da_approval_${ref}`;

async function page(c: Context<Env>, options: ApprovalPageOptions, { shown, ...partial }: ViewParts, ref: string | undefined): Promise<Response> {
  const view: ApprovalView = {
    ...partial,
    title: partial.title ?? options.defaultTitle ?? "Approval requested",
    action: c.req.path,
    hidden: ref ? { ref, ...(shown !== undefined ? { shown } : {}) } : {},
    ...(c.get("secureHeadersNonce") ? { nonce: c.get("secureHeadersNonce")! } : {}),
  };
  const rendered = options.render ? await options.render(view, c) : await renderPage(view);
  if (rendered instanceof Response) return rendered;
  return c.html(rendered, view.status as 200);
}
