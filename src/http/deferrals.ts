import { Hono } from "hono";
import { z } from "zod";
import type { AgentClient } from "../client/agent-client.js";
import type { DeferralStatus } from "../core/deferral-record.js";
import type { HttpEnv } from "./env.js";
import { Id, JsonPresent, PageSize, PageToken, valid } from "./validate.js";

/** Every status a deferral record can have, as query parameters take them. */
export const STATUSES = ["deferred", "needs-compaction", "resumed", "expired", "denied"] as const satisfies readonly DeferralStatus[];

const ListQuery = z.object({
  /** One status, or several as repeated parameters (`?status=deferred&status=expired`). */
  status: z.union([z.enum(STATUSES), z.array(z.enum(STATUSES)).max(STATUSES.length)]).optional(),
  agentId: Id.optional(),
  expiringBefore: z.iso.datetime({ offset: true }).optional(),
  limit: PageSize(1000).optional(),
  cursor: PageToken.optional(),
});

/** `shown`: the record's `callFingerprint` the approver saw; a resume of anything else is refused (RC5058). */
const Resume = z.object({ token: z.string(), payload: JsonPresent, shown: z.string().regex(/^[0-9a-f]{64}$/, "is not a callFingerprint").optional() });

/** `/deferrals` (list, get) and `/resume`, each asking the client's hook as the caller. */
export function deferralRoutes(agents: AgentClient) {
  const caller = (principal: HttpEnv["Variables"]["principal"]) => (principal ? { principal } : {});
  return new Hono<HttpEnv>()
    .get("/deferrals", valid("query", ListQuery), async (c) => {
      const q = c.req.valid("query");
      const page = await agents.deferrals.list({
        ...caller(c.get("principal")),
        ...(q.status !== undefined ? { status: q.status } : {}),
        ...(q.agentId !== undefined ? { agentId: q.agentId } : {}),
        ...(q.expiringBefore !== undefined ? { expiringBefore: q.expiringBefore } : {}),
        ...(q.limit !== undefined ? { limit: q.limit } : {}),
        ...(q.cursor ? { cursor: q.cursor } : {}),
      });
      return c.json(page);
    })
    // Records never hold tokens; the step state is the transcript the run will continue from.
    .get("/deferrals/:id", valid("param", z.object({ id: Id })), async (c) => c.json(await agents.deferrals.get({ deferralId: c.req.valid("param").id, ...caller(c.get("principal")) })))
    .post("/resume", valid("json", Resume), async (c) => {
      const { token, payload, shown } = c.req.valid("json");
      return c.json(await agents.resume({ token, payload: payload as never, ...(shown !== undefined ? { shown } : {}), ...caller(c.get("principal")) }));
    });
}
