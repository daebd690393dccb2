import { randomUUID } from "node:crypto";
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
import { DeferralIdKey, DeferralStatusKey } from "../../core/search-attributes.js";
import type { HttpEnv } from "../env.js";
import { pageHeaders } from "../page-headers.js";
import { Id, PageToken, valid } from "../validate.js";
import { delayMs } from "../../core/duration.js";
import { historyVersion, readDetail } from "./history.js";
import { LIST_STATUSES, listConsole } from "./list.js";
import { consoleLiveRoutes } from "./live.js";
import type { ConsolePageOptions } from "./options.js";
import { renderConsoleDetail, renderConsoleList, renderConsoleRefusal, type ConsoleDetailView } from "./page.js";

type Env = HttpEnv & { Variables: { secureHeadersNonce?: string } };

// Unknown parameters are refused (AI1040) rather than ignored: a filter misspelt would show everything.
const ListQuery = z
  .object({
    status: z.union([z.enum(LIST_STATUSES), z.literal("")]).optional(),
    kind: z.enum(["run", "thread", ""]).optional(),
    agent: z.union([Id, z.literal("")]).optional(),
    cursor: PageToken.optional(),
  })
  .strict();
const IdParam = z.object({ id: Id });
const CancelForm = z.object({}).strict();
const SendForm = z.object({ prompt: z.string().min(1, "must not be empty").max(20_000, "is longer than 20000 characters"), messageId: Id }).strict();

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

  app.get("/", valid("query", ListQuery), async (c) => {
    const q = c.req.valid("query");
    const filters = { ...(q.status ? { status: q.status } : {}), ...(q.kind ? { kind: q.kind } : {}), ...(q.agent ? { agentId: q.agent } : {}) };
    const page = await listConsole(agents, threads, { principal: c.get("principal"), ...filters, ...(q.cursor ? { cursor: q.cursor } : {}), limit: pageSize });
    const base = consolePath(c);
    const next = page.cursor
      ? `${base}?${new URLSearchParams({ ...(q.status ? { status: q.status } : {}), ...(q.kind ? { kind: q.kind } : {}), ...(q.agent ? { agent: q.agent } : {}), cursor: page.cursor })}`
      : undefined;
    return c.html(await renderConsoleList({ title, rows: page.rows, base, filters, ...(next ? { next } : {}), nonce: nonceOf(c), now: Date.now() }));
  });

  app.get("/runs/:id", valid("param", IdParam), (c) => detail(c, "run", c.req.valid("param").id));
  app.get("/threads/:id", valid("param", IdParam), (c) => detail(c, "thread", c.req.valid("param").id));

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

  /** One run's or thread's page, as the caller may read it (`run.state`, `thread.messages`), or the page saying why not. */
  async function detail(c: Context<Env>, kind: "run" | "thread", id: string, notice?: ConsoleDetailView["notice"], status = 200): Promise<Response> {
    const principal = c.get("principal");
    try {
      if (kind === "run") await authorizeRunRead(agents.deferrals, id, principal);
      else await threadAccessOf(threads).check({ threadId: id, ...(principal ? { principal } : {}) }, "thread.messages");
      // The version first, then the history: an event in between shows now and makes the next ask see a new version.
      const version = refreshMs > 0 ? await historyVersion(agents.client, id) : undefined;
      if (version !== undefined && notice === undefined && matches(c.req.header("if-none-match"), version)) return c.body(null, 304);
      const read = await readDetail(agents.client, agents.taskQueue, kind, id);
      // Describe, like history, is no billed action: what the run waits on now.
      const waiting = read.status === "running" ? await waitingOn(agents, id) : undefined;
      const base = consolePath(c);
      const self = `${base}/${kind === "run" ? "runs" : "threads"}/${encodeURIComponent(id)}`;
      const view: ConsoleDetailView = {
        detail: read,
        back: base,
        ...(waiting && links.inbox ? { decide: { href: `${base.slice(0, -"/console".length)}/inbox/${encodeURIComponent(waiting)}` } } : {}),
        ...(kind === "run" && read.status === "running" ? { cancel: `${self}/cancel` } : {}),
        ...(kind === "thread" && read.status === "running" ? { send: { action: `${self}/messages`, messageId: randomUUID() } } : {}),
        ...(notice ? { notice } : {}),
        // A closed workflow's history no longer grows: its page has nothing to follow (the script stops on it).
        ...(version !== undefined ? { live: { src: read.status === "running" ? self : "", version, everyMs: refreshMs, ...(read.status === "running" ? { events: `${self}/live` } : {}) } } : {}),
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
  const described = await agents.client.workflowService.describeWorkflowExecution({ namespace: agents.client.options.namespace, execution: { workflowId: id } });
  const attrs = typedSearchAttributesOf(described.workflowExecutionInfo?.searchAttributes?.indexedFields, [DeferralIdKey, DeferralStatusKey]);
  return attrs.get(DeferralStatusKey) === "deferred" ? attrs.get(DeferralIdKey) : undefined;
}

async function refusal(c: Context<Env>, err: DurableAgentsError, title: string, back?: string): Promise<Response> {
  return c.html(await renderConsoleRefusal({ title, message: err.message, code: err.code, ...(back ? { back } : {}), nonce: nonceOf(c) }), codeInfo(err.code).http as ContentfulStatusCode);
}

const nonceOf = (c: Context<Env>) => c.get("secureHeadersNonce") ?? "";
/** The console's own path: the request's, less a run's or thread's part (an id is one encoded segment). */
const consolePath = (c: Context<Env>) =>
  new URL(c.req.url).pathname.replace(/\/(runs|threads)\/[^/]+(\/(cancel|messages))?$/, "").replace(/\/$/, "");

function matches(header: string | undefined, version: string): boolean {
  return header !== undefined && header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === `"${version}"`);
}
