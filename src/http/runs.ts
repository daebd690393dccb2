import { createHash } from "node:crypto";
import { Hono } from "hono";
import { z } from "zod";
import type { Duration } from "@temporalio/common";
import type { AgentClient } from "../client/agent-client.js";
import { RequestMalformedError } from "../core/errors/http.js";
import type { Principal } from "../core/json.js";
import type { HttpEnv } from "./env.js";
import { eventStreamRoute } from "./events.js";
import type { EventStreamOptions } from "./options.js";
import { Id, OffsetCursor, PageSize, valid } from "./validate.js";

const StartRun = z.object({
  /** The agent's id. */
  agent: Id,
  prompt: z.string(),
  runId: Id.optional(),
  /** A duration: `"7d"`, or milliseconds. */
  timeout: z.union([z.string().max(64), z.number().positive()]).optional(),
  /** Answer once the run settles (completed, failed or deferred) instead of as soon as it started. */
  wait: z.boolean().optional(),
  /** Stream the answers' deltas to `GET /runs/:id/events` readers. */
  stream: z.boolean().optional(),
});

const Cancel = z.object({ reason: z.string().max(1000).optional() });
const Page = z.object({ cursor: OffsetCursor.optional(), limit: PageSize(1000).optional() });
const RunParam = z.object({ id: Id });

/** `/runs`: start (idempotent by `runId` or `Idempotency-Key`), state, messages, events, cancel; each asks the client's hook as the caller. */
export function runRoutes(agents: AgentClient, events: EventStreamOptions) {
  const caller = (principal: HttpEnv["Variables"]["principal"]) => (principal ? { principal } : {});
  return new Hono<HttpEnv>()
    .post("/", valid("json", StartRun), async (c) => {
      const body = c.req.valid("json");
      const principal = c.get("principal");
      const runId = body.runId ?? idempotentRunId(body.agent, principal, c.req.header("idempotency-key"));
      const handle = await agents.start(body.agent, {
        prompt: body.prompt,
        ...(runId ? { runId } : {}),
        ...(principal ? { principal } : {}),
        ...(body.timeout !== undefined ? { timeout: body.timeout as Duration } : {}),
        ...(body.stream !== undefined ? { stream: body.stream } : {}),
      });
      c.header("Location", `${c.req.path.replace(/\/$/, "")}/${encodeURIComponent(handle.runId)}`);
      if (!body.wait) return c.json({ runId: handle.runId }, 202);
      return c.json({ runId: handle.runId, settled: await handle.settled() }, 200);
    })
    .get("/:id", valid("param", RunParam), async (c) => c.json(await agents.state({ runId: c.req.valid("param").id, ...caller(c.get("principal")) })))
    .get("/:id/messages", valid("param", RunParam), valid("query", Page), async (c) => {
      const { cursor, limit } = c.req.valid("query");
      return c.json(
        await agents.listMessages({
          runId: c.req.valid("param").id,
          ...caller(c.get("principal")),
          ...(cursor !== undefined ? { cursor } : {}),
          ...(limit !== undefined ? { limit } : {}),
        }),
      );
    })
    .get("/:id/events", valid("param", RunParam), eventStreamRoute({ source: agents.runStreams, open: (runId, principal) => agents.openStream({ runId, ...caller(principal) }) }, events))
    .post("/:id/cancel", valid("param", RunParam), valid("json", Cancel), async (c) => {
      const runId = c.req.valid("param").id;
      const { reason } = c.req.valid("json");
      await agents.cancel({ runId, ...(reason ? { reason } : {}), ...caller(c.get("principal")) });
      return c.json({ runId, cancelled: true });
    });
}

/**
 * The run id an `Idempotency-Key` stands for: the same key from the same principal for the
 * same agent always names the same run, so a retried POST attaches instead of starting twice.
 */
function idempotentRunId(agentId: string, principal: Principal | undefined, key: string | undefined): string | undefined {
  if (key === undefined) return undefined;
  if (key.length === 0 || key.length > 255) {
    throw new RequestMalformedError({ where: "header idempotency-key", problem: "must be 1 to 255 characters" });
  }
  const digest = createHash("sha256").update(JSON.stringify([agentId, principal?.id ?? null, key])).digest("base64url").slice(0, 32);
  return `${agentId.slice(0, 200)}-idem-${digest}`;
}
