import { createHash, randomUUID } from "node:crypto";
import { Hono, type Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import type { AgentClient } from "../../client/agent-client.js";
import { typedSearchAttributesOf } from "../../client/data-converter.js";
import { authorizeRunRead } from "../../client/deferral-store.js";
import { threadAccessOf, type ThreadsClient } from "../../client/threads/threads-client.js";
import { DurableAgentsError } from "../../core/errors/base.js";
import { codeInfo } from "../../core/errors/codes.js";
import { ConsoleSignInRequiredError } from "../../core/errors/http.js";
import { InvalidDefinitionError } from "../../core/errors/setup.js";
import type { Principal } from "../../core/json.js";
import { DeferralIdKey, DeferralStatusKey } from "../../core/search-attributes.js";
import type { HttpEnv } from "../env.js";
import { pageHeaders } from "../page-headers.js";
import { Id, PageToken, valid } from "../validate.js";
import { delayMs } from "../../core/duration.js";
import { DeferralNotFoundError } from "../../core/errors/deferrals.js";
import { MAX_DENY_REASON } from "../../core/request-shapes.js";
import { historyVersion, readDetail } from "./history.js";
import { LIST_STATUSES, listConsole, memoOf, type ConsoleRow } from "./list.js";
import { INBOX_MEMO_KEY, inboxRowFrom, type InboxRow } from "../../core/inbox-row.js";
import { renderConsoleApprovals } from "./approvals-page.js";
import { readSubAgentTree } from "./tree.js";
import { TurnCursor, turnWindow } from "./paging.js";
import { consoleLiveRoutes } from "./live.js";
import { consoleSummaryRoutes } from "./summary.js";
import type { ConsolePageOptions } from "./options.js";
import { renderConsoleDetail, renderConsoleList, renderConsoleRefusal, type ConsoleDetailView } from "./page.js";

type Env = HttpEnv & { Variables: { secureHeadersNonce?: string } };

// A time as a date input sends it (`2026-12-06`, `2026-12-06T16:50`), read as UTC, or with its zone.
const When = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/, "is not a date (2026-12-06 or 2026-12-06T16:50, UTC unless it says its zone)")
  .transform((v) => new Date(/T.*(Z|[+-]\d{2}:\d{2})$/.test(v) ? v : v.includes("T") ? `${v}Z` : `${v}T00:00Z`))
  .refine((d) => !Number.isNaN(d.getTime()), "is not a date");

// Unknown parameters are refused (AI1040) rather than ignored: a filter misspelt would show everything.
const ListQuery = z
  .object({
    status: z.union([z.enum(LIST_STATUSES), z.literal("")]).optional(),
    kind: z.enum(["run", "thread", ""]).optional(),
    agent: z.union([Id, z.literal("")]).optional(),
    q: z.union([Id.max(200, "is longer than 200 characters"), z.literal("")]).optional(),
    principal: z.union([Id.max(200, "is longer than 200 characters"), z.literal("")]).optional(),
    after: z.union([When, z.literal("")]).optional(),
    before: z.union([When, z.literal("")]).optional(),
    cursor: PageToken.optional(),
  })
  .strict();
const IdParam = z.object({ id: Id });
const ApprovalsQuery = z
  .object({ agent: z.union([Id.max(200, "is longer than 200 characters"), z.literal("")]).optional(), requires: z.union([Id.max(200, "is longer than 200 characters"), z.literal("")]).optional(), cursor: PageToken.optional() })
  .strict();
// Other parameters are left alone: the live updates and the list link to the page as it is.
const DetailQuery = z.object({ before: TurnCursor.optional() });
const CancelForm = z.object({}).strict();
const SendForm = z.object({ prompt: z.string().min(1, "must not be empty").max(20_000, "is longer than 20000 characters"), messageId: Id }).strict();
// The deny form names the request it saw, so a page left open never denies a later one.
const DenyForm = z
  .object({ deferralId: Id, reason: z.string().trim().min(1, "must not be empty").max(MAX_DENY_REASON, `is longer than ${MAX_DENY_REASON} characters`) })
  .strict();

/**
 * The console: `GET /console` lists the runs and threads of the client's task queue the
 * caller may read (one visibility listing; the hook asked per row), `GET /console/runs/:id`
 * and `/console/threads/:id` show one from its history (free reads, decoded through the
 * client's data converter), and two forms act as the caller through the clients:
 * `POST /console/runs/:id/cancel` (`run.cancel`) and `POST /console/threads/:id/messages`
 * (`thread.send`). Deciding is the inbox page's (`/inbox/:id`), which the page links to.
 * Only signed-in callers (a principal from `authenticate`): anyone else gets AI1049 (401).
 */
export function consoleRoutes(agents: AgentClient, threads: ThreadsClient, options: ConsolePageOptions, links: { inbox: boolean }) {
  const title = options.title ?? "Console";
  const pageSize = options.pageSize ?? 50;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 200) throw new InvalidDefinitionError({ subject: "console.pageSize", problem: "must be a whole number from 1 to 200" });
  const refreshMs = options.refreshInterval === undefined ? 3_000 : delayMs(options.refreshInterval, "console.refreshInterval", "3s");
  const app = new Hono<Env>();
  app.use(...pageHeaders({ script: refreshMs > 0 }));
  app.use(async (c, next) => {
    if (c.get("principal") === undefined) return refusal(c, new ConsoleSignInRequiredError({ path: new URL(c.req.url).pathname }), "Sign in to open the console");
    await next();
  });

  // The live panel's streams (live.ts): behind the sign-in check above, like every page.
  if (refreshMs > 0) app.route("/", consoleLiveRoutes(agents, threads));
  // The list's per-row figures (summary.ts): authorized as the row's page, behind the sign-in check too.
  app.route("/", consoleSummaryRoutes(agents, mayRead));

  app.get("/", valid("query", ListQuery), async (c) => {
    const q = c.req.valid("query");
    const filters = { ...(q.status ? { status: q.status } : {}), ...(q.kind ? { kind: q.kind } : {}), ...(q.agent ? { agentId: q.agent } : {}) };
    const search = {
      ...(q.q ? { idPrefix: q.q } : {}),
      ...(q.principal ? { actingFor: q.principal } : {}),
      ...(q.after ? { startedAfter: q.after } : {}),
      ...(q.before ? { startedBefore: q.before } : {}),
    };
    const page = await listConsole(agents, threads, { principal: c.get("principal"), ...filters, ...search, ...(q.cursor ? { cursor: q.cursor } : {}), limit: pageSize });
    const base = consolePath(c);
    // The filters as given (not as parsed): the next page's and the live poll's address keep them.
    const given = new URL(c.req.url).searchParams;
    const kept = Object.fromEntries(["status", "kind", "agent", "q", "principal", "after", "before"].flatMap((k) => (given.get(k) ? [[k, given.get(k)!]] : [])));
    const next = page.cursor ? `${base}?${new URLSearchParams({ ...kept, cursor: page.cursor })}` : undefined;
    // The list follows itself as a detail page does: one listing per ask (free), 304 when its rows are the same.
    const version = listVersion(c.get("principal")?.id, page);
    if (refreshMs > 0) c.header("ETag", `"${version}"`);
    if (refreshMs > 0 && matches(c.req.header("if-none-match"), version)) return c.body(null, 304);
    const self = `${base}${new URL(c.req.url).search}`;
    const view = {
      title,
      rows: page.rows,
      base,
      filters: kept,
      ...(next ? { next } : {}),
      ...(refreshMs > 0 ? { live: { src: self, version, everyMs: refreshMs } } : {}),
      nonce: nonceOf(c),
      now: Date.now(),
    };
    return c.html(await renderConsoleList(view));
  });

  // The inbox as a console view: its rows as `agents.approvals.list` gives them (the hook asked
  // `deferral.list` per row; rows from the memo, 0 billed actions), decided on the inbox's pages.
  app.get("/approvals", valid("query", ApprovalsQuery), async (c) => {
    const q = c.req.valid("query");
    const page = await agents.approvals.list({
      ...caller(c),
      limit: pageSize,
      ...(q.agent ? { agentId: q.agent } : {}),
      ...(q.requires ? { requires: q.requires } : {}),
      ...(q.cursor ? { cursor: q.cursor } : {}),
    });
    const base = new URL(c.req.url).pathname.replace(/\/approvals\/?$/, "");
    const next = page.cursor ? `${base}/approvals?${new URLSearchParams({ ...(q.agent ? { agent: q.agent } : {}), ...(q.requires ? { requires: q.requires } : {}), cursor: page.cursor })}` : undefined;
    const view = {
      title,
      approvals: page.approvals,
      base,
      ...(links.inbox ? { inbox: `${base.slice(0, -"/console".length)}/inbox` } : {}),
      filters: { ...(q.agent ? { agent: q.agent } : {}), ...(q.requires ? { requires: q.requires } : {}) },
      ...(next ? { next } : {}),
      nonce: nonceOf(c),
      now: Date.now(),
    };
    return c.html(await renderConsoleApprovals(view));
  });

  app.get("/runs/:id", valid("param", IdParam), valid("query", DetailQuery), (c) => detail(c, "run", c.req.valid("param").id, undefined, 200, c.req.valid("query").before));
  app.get("/threads/:id", valid("param", IdParam), valid("query", DetailQuery), (c) => detail(c, "thread", c.req.valid("param").id, undefined, 200, c.req.valid("query").before));

  app.post("/runs/:id/cancel", valid("param", IdParam), valid("form", CancelForm), async (c) => {
    const runId = c.req.valid("param").id;
    const principal = c.get("principal");
    try {
      await agents.cancel({ runId, ...(principal ? { principal } : {}) });
    } catch (err) {
      if (!DurableAgentsError.isDurableAgentsError(err)) throw err;
      return detail(c, "run", runId, { kind: "refused", text: `Not cancelled: ${err.message}`, code: err.code }, codeInfo(err.code).http);
    }
    return detail(c, "run", runId, { kind: "done", text: "Cancel asked: the call in flight is aborted and the run ends (AI1005)." });
  });

  app.post("/threads/:id/messages", valid("param", IdParam), valid("form", SendForm), async (c) => {
    const threadId = c.req.valid("param").id;
    const { prompt, messageId } = c.req.valid("form");
    const principal = c.get("principal");
    try {
      const reply = await threads.sendMessage({ threadId, prompt, messageId, ...(principal ? { principal } : {}) });
      const text = reply.duplicate ? "This message was sent already." : "Sent. The answer shows here once the turn ends: reload the page.";
      return await detail(c, "thread", threadId, { kind: "done", text });
    } catch (err) {
      if (!DurableAgentsError.isDurableAgentsError(err)) throw err;
      return detail(c, "thread", threadId, { kind: "refused", text: `Not sent: ${err.message}`, code: err.code }, codeInfo(err.code).http);
    }
  });

  // Stop, resume and deny act as the caller through the clients, as cancel does: the hook is
  // asked (thread.stop, thread.resume, deferral.deny) and a refusal is shown with its code.
  app.post("/threads/:id/stop", valid("param", IdParam), valid("form", CancelForm), (c) => {
    const threadId = c.req.valid("param").id;
    return act(c, "thread", threadId, "Not stopped", async () => {
      const reply = await threads.stopThread({ threadId, ...caller(c) });
      return reply.previousStatus === "stopped" || reply.status !== "stopped" ? `No turn was running: the thread is ${reply.status}.` : "Stopped: the turn in flight is interrupted. Resume continues it where it stopped.";
    });
  });
  app.post("/threads/:id/resume", valid("param", IdParam), valid("form", CancelForm), (c) => {
    const threadId = c.req.valid("param").id;
    return act(c, "thread", threadId, "Not resumed", async () => {
      const reply = await threads.resumeThread({ threadId, ...caller(c) });
      return `Resumed: the thread is ${reply.status}.`;
    });
  });
  for (const kind of ["run", "thread"] as const) {
    app.post(`/${kind === "run" ? "runs" : "threads"}/:id/deny`, valid("param", IdParam), valid("form", DenyForm), (c) => {
      const id = c.req.valid("param").id;
      const { deferralId, reason } = c.req.valid("form");
      return act(c, kind, id, "Not denied", async () => {
        // Only the request this run or thread waits on now (describe, free): an id of another run is none of this page's.
        // Read access first, as the page's: whether a request waits is what the page shows, so a caller who may not read it learns nothing.
        await mayRead(kind, id, c.get("principal"));
        if ((await waitingOn(agents, id)) !== deferralId) throw new DeferralNotFoundError({ deferralId });
        await agents.deferrals.deny({ deferralId, reason, ...caller(c) });
        return "Denied: its calls do not run, and the model is told why.";
      });
    });
  }

  /** Whether `principal` may read this run's or thread's page (`run.state`, `thread.messages`): AI1013 / AI1021 otherwise. */
  async function mayRead(kind: "run" | "thread", id: string, principal: Principal | undefined): Promise<void> {
    if (kind === "run") await authorizeRunRead(agents.deferrals, id, principal);
    else await threadAccessOf(threads).check({ threadId: id, ...(principal ? { principal } : {}) }, "thread.messages");
  }

  /** Runs one action as the caller; its page shows what happened, or the refusal's code (with its HTTP status). */
  async function act(c: Context<Env>, kind: "run" | "thread", id: string, refused: string, action: () => Promise<string>): Promise<Response> {
    let text: string;
    try {
      text = await action();
    } catch (err) {
      if (!DurableAgentsError.isDurableAgentsError(err)) throw err;
      return detail(c, kind, id, { kind: "refused", text: `${refused}: ${err.message}`, code: err.code }, codeInfo(err.code).http);
    }
    return detail(c, kind, id, { kind: "done", text });
  }

  /** One run's or thread's page, as the caller may read it (`run.state`, `thread.messages`), or the page saying why not. */
  async function detail(c: Context<Env>, kind: "run" | "thread", id: string, notice?: ConsoleDetailView["notice"], status = 200, before?: number): Promise<Response> {
    const principal = c.get("principal");
    try {
      await mayRead(kind, id, principal);
      // The version first, then the history: an event in between shows now and makes the next ask see a new version.
      const version = refreshMs > 0 ? await historyVersion(agents.client, id) : undefined;
      if (version !== undefined && notice === undefined && before === undefined && matches(c.req.header("if-none-match"), version)) return c.body(null, 304);
      const read = await readDetail(agents.client, agents.taskQueue, kind, id);
      // Describe, like history, is no billed action: what the run waits on now.
      const request = read.status === "running" ? await waitingRequest(agents, id) : undefined;
      const waiting = request?.id;
      // Its sub-agents' own histories (free reads too), each as the caller may read it (`run.state`): their status now, and theirs in turn.
      const subAgents = await readSubAgentTree(read, async (childId) => {
        await authorizeRunRead(agents.deferrals, childId, principal);
        return readDetail(agents.client, agents.taskQueue, "run", childId);
      });
      const turns = turnWindow(read, before);
      const base = consolePath(c);
      const self = `${base}/${kind === "run" ? "runs" : "threads"}/${encodeURIComponent(id)}`;
      const view: ConsoleDetailView = {
        detail: read,
        back: base,
        ...(waiting && links.inbox ? { decide: { href: `${base.slice(0, -"/console".length)}/inbox/${encodeURIComponent(waiting)}`, ...(request?.row ? { request: request.row } : {}) } } : {}),
        ...(kind === "run" && read.status === "running" ? { cancel: `${self}/cancel` } : {}),
        ...(kind === "thread" && read.status === "running" ? { send: { action: `${self}/messages`, messageId: randomUUID() } } : {}),
        ...(kind === "thread" && read.status === "running" ? { turn: { stop: `${self}/stop`, resume: `${self}/resume` } } : {}),
        ...(waiting ? { deny: { action: `${self}/deny`, deferralId: waiting, maxLength: MAX_DENY_REASON } } : {}),
        ...(notice ? { notice } : {}),
        ...(subAgents.length > 0 ? { subAgents } : {}),
        ...(turns ? { turns } : {}),
        // A closed workflow's history no longer grows: its page has nothing to follow (the script stops on it).
        // Older turns no longer change: their page follows nothing, and shows no live panel.
        ...(version !== undefined
          ? { live: { src: read.status === "running" && before === undefined ? self : "", version, everyMs: refreshMs, ...(read.status === "running" && before === undefined ? { events: `${self}/live` } : {}) } }
          : {}),
        nonce: nonceOf(c),
      };
      return c.html(await renderConsoleDetail(view), status as ContentfulStatusCode);
    } catch (err) {
      if (!DurableAgentsError.isDurableAgentsError(err)) throw err;
      return refusal(c, err, kind === "run" ? "This run cannot be shown" : "This thread cannot be shown", consolePath(c));
    }
  }

  return app;
}

/** The request a running run or thread waits on, from describe (search attributes): its id, or undefined. */
async function waitingOn(agents: AgentClient, id: string): Promise<string | undefined> {
  return (await waitingRequest(agents, id))?.id;
}

/**
 * The request it waits on with its row (calls, meta), both from the one describe (search
 * attributes and memo: no query, no billed action); the row is absent when the memo keeps none.
 */
async function waitingRequest(agents: AgentClient, id: string): Promise<{ id: string; row?: InboxRow } | undefined> {
  const described = await agents.client.workflowService.describeWorkflowExecution({ namespace: agents.client.options.namespace, execution: { workflowId: id } });
  const attrs = typedSearchAttributesOf(described.workflowExecutionInfo?.searchAttributes?.indexedFields, [DeferralIdKey, DeferralStatusKey]);
  const deferralId = attrs.get(DeferralStatusKey) === "deferred" ? attrs.get(DeferralIdKey) : undefined;
  if (deferralId === undefined) return undefined;
  const row = inboxRowFrom(await memoOf(agents, described.workflowExecutionInfo?.memo?.fields?.[INBOX_MEMO_KEY]), deferralId);
  return { id: deferralId, ...(row ? { row } : {}) };
}

async function refusal(c: Context<Env>, err: DurableAgentsError, title: string, back?: string): Promise<Response> {
  return c.html(await renderConsoleRefusal({ title, message: err.message, code: err.code, ...(back ? { back } : {}), nonce: nonceOf(c) }), codeInfo(err.code).http as ContentfulStatusCode);
}

const caller = (c: Context<Env>) => {
  const principal = c.get("principal");
  return principal ? { principal } : {};
};
const nonceOf = (c: Context<Env>) => c.get("secureHeadersNonce") ?? "";
/** The console's own path: the request's, less a run's or thread's part (an id is one encoded segment). */
const consolePath = (c: Context<Env>) =>
  new URL(c.req.url).pathname.replace(/\/(runs|threads)\/[^/]+(\/(cancel|messages|stop|resume|deny))?$/, "").replace(/\/$/, "");

/** A version of what a list page shows: its rows' ids, states, waits and history lengths, and where it goes on. */
function listVersion(principal: string | undefined, page: { rows: ConsoleRow[]; cursor?: string }): string {
  const shown = page.rows.map((r) => [r.id, r.status, r.waiting?.id ?? null, r.principal?.id ?? null, r.events ?? null, r.closedAt ?? null]);
  return createHash("sha256")
    .update(JSON.stringify([principal ?? null, shown, page.cursor ?? null]))
    .digest("base64url")
    .slice(0, 27);
}

function matches(header: string | undefined, version: string): boolean {
  return header !== undefined && header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === `"${version}"`);
}
