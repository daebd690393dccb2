import { Hono } from "hono";
import { z } from "zod";
import type { AgentClient } from "../client/agent-client.js";
import type { HttpEnv } from "./env.js";
import { Id, valid } from "./validate.js";

/** Exactly one of a run's id or a thread's: where the permissions are kept. */
const Host = <T extends z.ZodRawShape>(extra: T) =>
  z.union([z.object({ runId: Id, threadId: z.undefined().optional(), ...extra }).strict(), z.object({ threadId: Id, runId: z.undefined().optional(), ...extra }).strict()]);
const RevokeBody = Host({ permissionId: Id });

/**
 * `/permissions`: the standing permissions of a run or thread (docs/approvals.md), as the
 * caller: `GET /permissions?runId=…` (or `threadId`) lists them (`permission.list`),
 * `POST /permissions/revoke` with `{ runId | threadId, permissionId }` ends one
 * (`permission.revoke`; AI1032, 404, when none with that id is in force).
 */
export function permissionRoutes(agents: AgentClient) {
  const caller = (principal: HttpEnv["Variables"]["principal"]) => (principal ? { principal } : {});
  return new Hono<HttpEnv>()
    .get("/", valid("query", Host({})), async (c) => {
      const q = c.req.valid("query");
      return c.json({ permissions: await agents.approvals.permissions({ ...(q.runId !== undefined ? { runId: q.runId } : { threadId: q.threadId! }), ...caller(c.get("principal")) }) });
    })
    .post("/revoke", valid("json", RevokeBody), async (c) => {
      const b = c.req.valid("json");
      const host = b.runId !== undefined ? { runId: b.runId } : { threadId: b.threadId! };
      return c.json(await agents.approvals.revoke({ ...host, permissionId: b.permissionId, ...caller(c.get("principal")) }));
    });
}
