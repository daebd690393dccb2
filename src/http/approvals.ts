import { Hono } from "hono";
import { z } from "zod";
import type { AgentClient } from "../client/agent-client.js";
import type { Decisions } from "../core/approval.js";
import type { DeferralStatus } from "../core/deferral-record.js";
import type { HttpEnv } from "./env.js";
import { Id, PageSize, valid } from "./validate.js";

const STATUSES = ["deferred", "needs-compaction", "resumed", "expired", "denied"] as const satisfies readonly DeferralStatus[];

// The outline only: what each decision says is checked where the request lives (RC5049, nothing spent).
const OneDecision = z.record(z.string(), z.unknown());
/** `{ decisions, shown? }`: one decision per call, as a list or by call id; `shown` the `callFingerprint` the approver saw (RC5058 if the calls changed since). */
export const Decide = z.object({
  decisions: z.union([z.array(OneDecision).max(1000), z.record(Id, OneDecision)]),
  shown: z.string().regex(/^[0-9a-f]{64}$/, "is not a callFingerprint").optional(),
});

const ListQuery = z.object({
  agentId: Id.optional(),
  /** One status, or several as repeated parameters. */
  status: z.union([z.enum(STATUSES), z.array(z.enum(STATUSES)).max(STATUSES.length)]).optional(),
  requires: z.string().min(1).max(1000).optional(),
  cursor: z.string().max(4096).regex(/^[A-Za-z0-9_-]*$/, "is not a cursor this route returned").optional(),
  limit: PageSize(1000).optional(),
});

/**
 * The inbox, `/approvals`: list (each row asked of the hook as `deferral.list`), read one
 * (`deferral.get`) and decide one by id (`resume`, the hook seeing the decisions).
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
    .get("/:id", valid("param", z.object({ id: Id })), async (c) => c.json(await agents.approvals.get(c.req.valid("param").id, caller(c.get("principal")))))
    .post("/:id", valid("param", z.object({ id: Id })), valid("json", Decide), async (c) => {
      const { decisions, shown } = c.req.valid("json");
      return c.json(await agents.approvals.decide(c.req.valid("param").id, decisions as Decisions, { ...caller(c.get("principal")), ...(shown !== undefined ? { shown } : {}) }));
    });
}
