import { createHash } from "node:crypto";
import { Hono, type Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { NONCE, secureHeaders } from "hono/secure-headers";
import { z } from "zod";
import type { AgentClient } from "../../client/agent-client.js";
import type { ResumeResult } from "../../client/resume.js";
import type { DeferralRecord, DeferralView } from "../../core/deferral-record.js";
import { findToolCall } from "../../core/thread-transcript.js";
import { DurableAgentsError } from "../../core/errors/base.js";
import { codeInfo, ErrorCode } from "../../core/errors/codes.js";
import type { JsonValue } from "../../core/json.js";
import type { HttpEnv } from "../env.js";
import { valid } from "../validate.js";
import type { ApprovalPageOptions } from "./options.js";
import { renderPage } from "./page.js";
import { previewResume } from "./preview.js";
import { readAnswer } from "./read-form.js";
import { rootSchema } from "./schema.js";
import { hintsOf, type ApprovalState, type ApprovalView } from "./view.js";

type Env = HttpEnv & { Variables: { secureHeadersNonce?: string } };

const Form = z.record(z.string().max(2000), z.union([z.string().max(100_000), z.array(z.string().max(100_000)).max(1000)]));

/**
 * `GET /approve?token=…` moves the token into an HttpOnly cookie named after its hash and
 * redirects to `?ref=<hash>`, so the token leaves the address bar, the history and every
 * later request line; `GET /approve?ref=…` shows the page; the form posts back to
 * `POST /approve`. The global CSRF check refuses a form posted from another site.
 */
export function approvalRoutes(agents: AgentClient, options: ApprovalPageOptions) {
  const app = new Hono<Env>();
  app.use(
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'none'"],
        styleSrc: [NONCE],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
      referrerPolicy: "no-referrer",
      xFrameOptions: "DENY",
    }),
  );
  app.use(async (c, next) => {
    await next();
    c.header("Cache-Control", "no-store");
  });

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

  app.post("/", valid("form", Form), async (c) => {
    const form = c.req.valid("form");
    const values: Record<string, string[]> = Object.create(null);
    for (const [k, v] of Object.entries(form)) values[k.replace(/\[\]$/, "")] = ([] as string[]).concat(v);
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
    const { value, problems } = readAnswer(rootSchema(preview.record.schema), values);
    if (problems.length > 0 || value === undefined) {
      return page(c, options, { ...formView(preview.record, values, problems.length > 0 ? problems : ["Give an answer."]), status: 400 }, ref);
    }
    try {
      const result = await agents.resume({ token, payload: value as JsonValue, ...(current !== undefined ? { shown: current } : {}), ...(principal ? { principal } : {}) });
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

/** `shown`: the deferred call's fingerprint the form displays, posted back as a hidden field. */
type ViewParts = Omit<ApprovalView, "action" | "hidden" | "title" | "nonce"> & { title?: string; shown?: string };

function stateView(state: ApprovalState, status: number, extra: { message?: string; code?: string } = {}): ViewParts {
  return { state, status, hints: {}, values: {}, errors: [], ...extra };
}

function formView(record: DeferralRecord, values: Record<string, string[]>, errors: string[]): ViewParts {
  const hints = hintsOf(record.meta);
  const title = hints.title ?? (typeof record.meta.title === "string" ? record.meta.title : undefined);
  const description = hints.description ?? (typeof record.meta.description === "string" ? record.meta.description : undefined);
  const args = argumentsOf(record);
  return {
    state: "form",
    status: 200,
    ...(title ? { title } : {}),
    ...(description ? { description } : {}),
    ...(record.agentId ? { agentId: record.agentId } : {}),
    ...(record.toolName ? { toolName: record.toolName } : {}),
    ...(args !== undefined ? { arguments: args } : {}),
    expiresAt: record.expiresAt,
    msLeft: Math.max(0, Date.parse(record.expiresAt) - Date.now()),
    ...(record.schema ? { schema: record.schema } : {}),
    hints,
    values,
    errors,
    ...(record.callFingerprint !== undefined ? { shown: record.callFingerprint } : {}),
  };
}

/** The form again, showing the call as it is now, for an answer given to something else: nothing was spent. */
function changedView(record: DeferralRecord, values: Record<string, string[]>): ViewParts {
  const message = "This request is not the one your answer was given to (it changed, or the page was out of date). Nothing was changed: check it again below and answer it as it is now.";
  return { ...formView(record, values, [message]), status: 409, code: ErrorCode.DeferralChanged };
}

function answeredView(result: ResumeResult, state: "answered" | "outcome"): ViewParts {
  return {
    ...stateView(state, 200, {
      message: state === "answered" ? "Someone answered this request already; nothing was changed. This is what happened:" : "The run continued with your answer.",
    }),
    outcome: result.outcome,
  };
}

const REFUSALS: Partial<Record<string, { state: ApprovalState; message: string }>> = {
  [ErrorCode.DeferralExpired]: { state: "expired", message: "The time to answer has run out. Nothing was changed; ask for a new request if it is still needed." },
  [ErrorCode.ResumeUnauthorized]: { state: "refused", message: "Your account is not allowed to answer this request. Nothing was changed." },
  [ErrorCode.DeferralDenied]: { state: "denied", message: "The request was withdrawn or can no longer be answered. Nothing was changed." },
  [ErrorCode.DeferralCancelled]: { state: "denied", message: "The run was cancelled. Nothing was changed." },
  [ErrorCode.DefinitionChanged]: { state: "denied", message: "The agent changed while it waited, so this request was withdrawn." },
  [ErrorCode.ResumeTokenInvalid]: { state: "invalid", message: "This link was not issued here or was altered." },
  [ErrorCode.ToolCallMismatch]: { state: "invalid", message: "This link belongs to a request that did not go ahead." },
  [ErrorCode.DeferralNotFound]: { state: "missing", message: "There is no pending request for this link." },
};

function refusalView(err: DurableAgentsError): ViewParts {
  const known = REFUSALS[err.code];
  return stateView(known?.state ?? "error", codeInfo(err.code).http, { message: known?.message ?? "The answer could not be taken. Nothing was changed.", code: err.code });
}

/** The deferred call's arguments, as the model wrote them: from the record read, else the step state. */
function argumentsOf(record: DeferralRecord & Partial<Pick<DeferralView, "stepState">>): JsonValue | undefined {
  const text = record.toolArguments ?? (record.stepState ? findToolCall(record.stepState.messages, record.toolCallId)?.call.function.arguments : undefined);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}
