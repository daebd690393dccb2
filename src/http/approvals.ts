import { Hono } from "hono";
import { z } from "zod";
import type { AgentClient } from "../client/agent-client.js";
import { DecideBody } from "./decide-body.js";
import { STATUSES } from "./deferrals.js";
import type { HttpEnv } from "./env.js";
import { Id, PageSize, PageToken, valid } from "./validate.js";

const ListQuery = z.object({
  agentId: Id.optional(),
  /** One status, or several as repeated parameters. Default `deferred`: what waits for a decision. */
  status: z.union([z.enum(STATUSES), z.array(z.enum(STATUSES)).max(STATUSES.length)]).optional(),
  /** Only requests whose `meta.requires` names this. */
  requires: Id.optional(),
  cursor: PageToken.optional(),
  limit: PageSize(1000).optional(),
});
const ApprovalParam = z.object({ id: Id });
const RunHistoryQuery = z
  .object({
    /** The run's (or thread's) workflow id. */
    runId: Id.optional(),
    /** Or a thread's id (the same as giving it as runId). */
    threadId: Id.optional(),
    /** Or: the requests this principal (its id) decided, denied or revoked a grant of. */
    decidedBy: Id.optional(),
    /** Or: the requests made on behalf of this principal (its id). */
    actingFor: Id.optional(),
    since: z.iso.datetime({ offset: true }).optional(),
    /** With decidedBy/actingFor: the previous page's `cursor`, and runs and threads per page. */
    cursor: PageToken.optional(),
    limit: PageSize(100).optional(),
  })
  .refine((q) => [q.runId !== undefined, q.threadId !== undefined, q.decidedBy !== undefined || q.actingFor !== undefined].filter(Boolean).length === 1, "give runId, threadId, or decidedBy and/or actingFor (one of them)")
  .refine((q) => q.runId !== undefined || q.threadId !== undefined || q.since !== undefined, "since is required with decidedBy or actingFor")
  .refine((q) => (q.runId === undefined && q.threadId === undefined) || (q.cursor === undefined && q.limit === undefined), "cursor and limit go with decidedBy or actingFor");

/**
 * `/approvals`: the one inbox (`agents.approvals`) as the caller: list (the hook asked
 * `deferral.list` per row), read and read the history of (`deferral.get`), decide by id (`resume`, the hook seeing
 * the decisions). Deciding takes no token: the client mints it with its secret, so the
 * hook is the only guard of who decides.
 */
export function approvalInboxRoutes(agents: AgentClient) {
  const caller = (principal: HttpEnv["Variables"]["principal"]) => (principal ? { principal } : {});
  return new Hono<HttpEnv>()
    .get("/", valid("query", ListQuery), async (c) => {
      const q = c.req.valid("query");
      return c.json(
        await agents.approvals.list({
          ...caller(c.get("principal")),
          ...(q.agentId !== undefined ? { agentId: q.agentId } : {}),
          ...(q.status !== undefined ? { status: q.status } : {}),
          ...(q.requires !== undefined ? { requires: q.requires } : {}),
          ...(q.cursor ? { cursor: q.cursor } : {}),
          ...(q.limit !== undefined ? { limit: q.limit } : {}),
        }),
      );
    })
    // Every request of one run or thread (`approvals.history({ runId })`), or those a principal
    // decided or was acted for (`{ decidedBy, actingFor, since }`): each run authorized as reading
    // it, `run.state` (a principal's listing leaves out the runs refused). Before `/:id`.
    .get("/history", valid("query", RunHistoryQuery), async (c) => {
      const { runId, threadId, decidedBy, actingFor, since, cursor, limit } = c.req.valid("query");
      const sinceOption = since !== undefined ? { since } : {};
      if (runId !== undefined) return c.json(await agents.approvals.history({ runId, ...sinceOption, ...caller(c.get("principal")) }));
      if (threadId !== undefined) return c.json(await agents.approvals.history({ threadId, ...sinceOption, ...caller(c.get("principal")) }));
      return c.json(
        await agents.approvals.history({
          since: since!,
          ...(decidedBy !== undefined ? { decidedBy } : {}),
          ...(actingFor !== undefined ? { actingFor } : {}),
          ...(cursor ? { cursor } : {}),
          ...(limit !== undefined ? { limit } : {}),
          ...caller(c.get("principal")),
        }),
      );
    })
    .get("/:id", valid("param", ApprovalParam), async (c) => c.json(await agents.approvals.get({ approvalId: c.req.valid("param").id, ...caller(c.get("principal")) })))
    // The request's life (`approvals.history`): authorized as reading it, `deferral.get`.
    .get("/:id/history", valid("param", ApprovalParam), async (c) => c.json(await agents.approvals.history({ approvalId: c.req.valid("param").id, ...caller(c.get("principal")) })))
    .post("/:id", valid("param", ApprovalParam), valid("json", DecideBody), async (c) => {
      const { decisions, shown } = c.req.valid("json");
      return c.json(await agents.approvals.decide({ approvalId: c.req.valid("param").id, decisions, ...caller(c.get("principal")), ...(shown !== undefined ? { shown } : {}) }));
    });
}
