import { createHash } from "node:crypto";
import { Hono, type Context } from "hono";
import { z } from "zod";
import type { AgentClient } from "../../client/agent-client.js";
import type { DeferralRecord } from "../../core/deferral-record.js";
import type { ApprovalRecord } from "../../core/approval-context.js";
import { DurableAgentsError } from "../../core/errors/base.js";
import { ErrorCode } from "../../core/errors/codes.js";
import { delayMs } from "../../core/duration.js";
import { callViews, readDecisions } from "../approval/calls-form.js";
import { FormBody, submitted } from "../approval/form-body.js";
import { renderPage } from "../approval/page.js";
import type { ApprovalView } from "../approval/view.js";
import { answeredView, changedView, formView, refusalView, stateView, type ViewParts } from "../approval/view-parts.js";
import type { HttpEnv } from "../env.js";
import { pageHeaders } from "../page-headers.js";
import { Id, PageSize, PageToken, valid } from "../validate.js";
import type { InboxPageOptions } from "./options.js";
import { renderDeferral, renderList, renderListBlock } from "./page.js";

type Env = HttpEnv & { Variables: { secureHeadersNonce?: string } };

const ListQuery = z.object({ agentId: Id.optional(), requires: Id.optional(), cursor: PageToken.optional(), limit: PageSize(200).optional() });
const RequestParam = z.object({ id: Id });

/**
 * The inbox page: `GET /inbox` lists the waiting requests (runs' and threads') the caller
 * may see (`agents.approvals.list`, the hook asked `deferral.list` per row), `GET
 * /inbox/:id` shows one (`deferral.get`) with a decision per call, and its form posts to
 * `POST /inbox/:id`, which decides by id (`agents.approvals.decide`, the hook asked
 * `resume`). No token is involved: the page acts as the authenticated caller. Same
 * headers as the approval page (a script nonce for the live list); the global CSRF check
 * refuses a form posted from another site.
 */
export function inboxPageRoutes(agents: AgentClient, options: InboxPageOptions) {
  const refreshMs = options.refreshInterval === undefined ? 5_000 : delayMs(options.refreshInterval, "inboxPage.refreshInterval", "5s");
  const title = options.title ?? "Approvals";
  const caller = (c: Context<Env>) => {
    const principal = c.get("principal");
    return principal ? { principal } : {};
  };
  const app = new Hono<Env>();
  app.use(...pageHeaders({ script: refreshMs > 0 }));

  app.get("/", valid("query", ListQuery), async (c) => {
    const q = c.req.valid("query");
    const limit = q.limit ?? 50;
    const filters = { ...caller(c), ...(q.agentId !== undefined ? { agentId: q.agentId } : {}) };
    // The version first, then the list: a change in between shows in the list and makes the next ask see a new version.
    const rows = await agents.deferrals.list({ ...filters, status: "deferred", limit, ...(q.cursor ? { cursor: q.cursor } : {}) });
    const version = createHash("sha256")
      .update(JSON.stringify([c.get("principal")?.id ?? null, q, rows.deferrals.map((r) => [r.deferralId, r.status]), rows.cursor ?? null]))
      .digest("base64url")
      .slice(0, 27);
    c.header("ETag", `"${version}"`);
    if (matches(c.req.header("if-none-match"), version)) return c.body(null, 304);
    const page = await agents.approvals.list({ ...filters, limit, ...(q.requires !== undefined ? { requires: q.requires } : {}), ...(q.cursor ? { cursor: q.cursor } : {}) });
    const base = new URL(c.req.url).pathname.replace(/\/$/, "");
    const next = page.cursor ? `${base}?${new URLSearchParams({ ...(q.agentId ? { agentId: q.agentId } : {}), ...(q.requires ? { requires: q.requires } : {}), ...(q.limit ? { limit: String(q.limit) } : {}), cursor: page.cursor })}` : undefined;
    const view = { title, approvals: page.approvals, base, ...(next ? { next } : {}), version, refreshMs, nonce: nonceOf(c), now: Date.now() };
    return c.html(c.req.header("x-inbox-live") === "1" ? await renderListBlock(view) : await renderList(view));
  });

  app.get("/:id", valid("param", RequestParam), async (c) => {
    const read = await readRecord(agents, c.req.valid("param").id, caller(c));
    if ("refused" in read) return show(c, read.refused);
    const record = read.record;
    if (record.status !== "deferred") return show(c, closedView(record));
    if (!record.approval) return c.html(await renderDeferral(record, { title: titleOf(record), back: listPath(c), nonce: nonceOf(c), now: Date.now() }));
    return show(c, formView(record, {}, []));
  });

  app.post("/:id", valid("param", RequestParam), valid("form", FormBody), async (c) => {
    const id = c.req.valid("param").id;
    const values = submitted(c.req.valid("form"));
    const read = await readRecord(agents, id, caller(c));
    if ("refused" in read) return show(c, read.refused);
    const record = read.record;
    if (record.status !== "deferred") return show(c, closedView(record));
    if (!record.approval) return c.html(await renderDeferral(record, { title: titleOf(record), back: listPath(c), nonce: nonceOf(c), now: Date.now() }), 409);
    // The decisions are bound to the calls this form showed (see the approval page).
    const current = record.callFingerprint;
    const shown = values.shown?.[0];
    if (current !== undefined && shown !== current) return show(c, changedView(record, values));
    const { decisions, problems } = readDecisions(callViews(record.approval.calls, record.approval.decided), values);
    if (problems.length > 0) return show(c, { ...formView(record, values, problems), status: 400 });
    try {
      const result = await agents.approvals.decide({ approvalId: id, decisions, ...caller(c), ...(current !== undefined ? { shown: current } : {}) });
      return show(c, answeredView(result, result.status === "duplicate" ? "answered" : "outcome"));
    } catch (err) {
      if (!DurableAgentsError.isDurableAgentsError(err)) throw err;
      if (err.code === ErrorCode.ResumePayloadInvalid || err.code === ErrorCode.NotPlainJson) return show(c, { ...formView(record, values, [err.message]), status: 400 });
      if (err.code === ErrorCode.DeferralChanged) {
        const again = await readRecord(agents, id, caller(c));
        if ("refused" in again) return show(c, again.refused);
        return show(c, again.record.status === "deferred" ? changedView(again.record, values) : closedView(again.record));
      }
      return show(c, refused(err));
    }
  });

  /** A request's page: the approval page's, with a way back to the list and no link wording. */
  async function show(c: Context<Env>, { shown, ...partial }: ViewParts): Promise<Response> {
    const view: ApprovalView = {
      ...partial,
      title: partial.title ?? "Approval requested",
      action: new URL(c.req.url).pathname,
      hidden: shown !== undefined ? { shown } : {},
      nonce: nonceOf(c),
    };
    return c.html(await renderPage(view, { back: { href: listPath(c), label: "All requests" }, headings: HEADINGS }), view.status as 200);
  }

  return app;
}

/** The record, as the caller may read it (`deferral.get`, and `approval.context` for its `context`), or the page saying why not. */
async function readRecord(agents: AgentClient, id: string, caller: { principal?: NonNullable<HttpEnv["Variables"]["principal"]> }): Promise<{ record: ApprovalRecord } | { refused: ViewParts }> {
  try {
    // As `approvals.get` reads it: one query, with what led to the request where the hook allows it (`approval.context`).
    return { record: await agents.approvals.readWithContext({ approvalId: id, ...caller }) };
  } catch (err) {
    if (!DurableAgentsError.isDurableAgentsError(err)) throw err;
    return { refused: refused(err) };
  }
}

function refused(err: DurableAgentsError): ViewParts {
  const view = refusalView(err);
  return err.code === ErrorCode.DeferralNotFound ? { ...view, message: "There is no such request." } : view;
}

/** A request that no longer waits: its outcome, or why it ended. */
function closedView(record: DeferralRecord): ViewParts {
  if (record.status === "expired") return stateView("expired", 410, { message: "The time to decide ran out; nothing was run." });
  if (record.status === "denied") return stateView("denied", 409, { message: "The request was withdrawn or can no longer be decided." });
  return record.outcome ? answeredView({ outcome: record.outcome }, "answered") : stateView("answered", 200, { message: "Someone decided this request already." });
}

/** The approval page's headings that speak of a link: the inbox opens requests by id. */
const HEADINGS = { expired: "The time to decide ran out", invalid: "This request cannot be opened", missing: "No such request" };

const titleOf = (record: DeferralRecord) => (typeof record.meta.title === "string" ? record.meta.title : "Waiting for an answer");
const nonceOf = (c: Context<Env>) => c.get("secureHeadersNonce") ?? "";
/** The list's address: the request's path without its last segment (the encoded id). */
const listPath = (c: Context<Env>) => {
  const path = new URL(c.req.url).pathname;
  return path.slice(0, path.lastIndexOf("/"));
};

function matches(header: string | undefined, version: string): boolean {
  return header !== undefined && header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === `"${version}"`);
}
