import { Hono } from "hono";
import { z } from "zod";
import type { Duration } from "@temporalio/common";
import type { AgentClient } from "../client/agent-client.js";
import type { AgentScheduleSpec, ScheduleOverlap } from "../client/schedules.js";
import type { HttpEnv } from "./env.js";
import { Id, PageSize, valid } from "./validate.js";

/** A duration as JSON carries it: `"1h"`, or milliseconds. */
const DurationField = z.union([z.string().max(64), z.number().positive()]);
/**
 * The spec forms a JSON body can hold: an interval or cron expressions. Temporal's whole
 * `ScheduleSpec` (calendars, dates) is for code; the client checks the values (AI1092).
 */
const Spec = z.union([
  z.strictObject({ every: DurationField, offset: z.union([z.string().max(64), z.number().nonnegative()]).optional() }),
  z.strictObject({ cron: z.union([z.string().max(500), z.array(z.string().max(500)).min(1).max(20)]), timezone: z.string().max(100).optional() }),
]);
const Overlap = z.enum(["SKIP", "BUFFER_ONE", "BUFFER_ALL", "CANCEL_OTHER", "TERMINATE_OTHER", "ALLOW_ALL"]);
const Note = z.string().max(1000);

const Create = z.object({
  /** The agent's id. */
  agent: Id,
  scheduleId: Id.optional(),
  spec: Spec,
  prompt: z.string(),
  overlap: Overlap.optional(),
  catchupWindow: DurationField.optional(),
  paused: z.boolean().optional(),
  note: Note.optional(),
  /** Each run's timeout. */
  timeout: DurationField.optional(),
  stream: z.boolean().optional(),
});
const Update = z.object({ spec: Spec.optional(), prompt: z.string().optional(), overlap: Overlap.optional(), catchupWindow: DurationField.optional() });
const PauseBody = z.object({ note: Note.optional() });
const TriggerBody = z.object({ overlap: Overlap.optional() });
const ListQuery = z.object({ agent: Id.optional(), limit: PageSize(1000).optional() });
const ScheduleParam = z.object({ id: Id });

/**
 * `/schedules`: create, list, describe, pause, unpause, trigger, update (`PATCH`) and delete
 * agent schedules, each as the authenticated caller; `agents.schedules` asks the hook. A
 * schedule's runs act for whoever created it.
 */
export function scheduleRoutes(agents: AgentClient) {
  const caller = (principal: HttpEnv["Variables"]["principal"]) => (principal ? { principal } : {});
  const schedules = () => agents.schedules;
  return new Hono<HttpEnv>()
    .post("/", valid("json", Create), async (c) => {
      const { agent, spec, prompt, timeout, catchupWindow, scheduleId: id, ...rest } = c.req.valid("json");
      const { scheduleId } = await schedules().create({
        agent,
        prompt,
        spec: spec as AgentScheduleSpec,
        ...(id !== undefined ? { scheduleId: id } : {}),
        ...(timeout !== undefined ? { timeout: timeout as Duration } : {}),
        ...(catchupWindow !== undefined ? { catchupWindow: catchupWindow as Duration } : {}),
        ...withoutUndefined(rest),
        ...caller(c.get("principal")),
      });
      c.header("Location", `${c.req.path.replace(/\/$/, "")}/${encodeURIComponent(scheduleId)}`);
      return c.json({ scheduleId }, 201);
    })
    .get("/", valid("query", ListQuery), async (c) => {
      const { agent, limit } = c.req.valid("query");
      return c.json(await schedules().list({ ...(agent ? { agentId: agent } : {}), ...(limit ? { limit } : {}), ...caller(c.get("principal")) }));
    })
    .get("/:id", valid("param", ScheduleParam), async (c) => c.json(await schedules().describe({ scheduleId: c.req.valid("param").id, ...caller(c.get("principal")) })))
    .patch("/:id", valid("param", ScheduleParam), valid("json", Update), async (c) => {
      const scheduleId = c.req.valid("param").id;
      const { spec, catchupWindow, ...rest } = c.req.valid("json");
      await schedules().update({
        scheduleId,
        ...(spec !== undefined ? { spec: spec as AgentScheduleSpec } : {}),
        ...(catchupWindow !== undefined ? { catchupWindow: catchupWindow as Duration } : {}),
        ...withoutUndefined(rest),
        ...caller(c.get("principal")),
      });
      return c.json({ scheduleId, updated: true });
    })
    .delete("/:id", valid("param", ScheduleParam), async (c) => {
      const scheduleId = c.req.valid("param").id;
      await schedules().delete({ scheduleId, ...caller(c.get("principal")) });
      return c.json({ scheduleId, deleted: true });
    })
    .post("/:id/pause", valid("param", ScheduleParam), valid("json", PauseBody), async (c) => {
      const scheduleId = c.req.valid("param").id;
      const { note } = c.req.valid("json");
      await schedules().pause({ scheduleId, ...(note !== undefined ? { note } : {}), ...caller(c.get("principal")) });
      return c.json({ scheduleId, paused: true });
    })
    .post("/:id/unpause", valid("param", ScheduleParam), valid("json", PauseBody), async (c) => {
      const scheduleId = c.req.valid("param").id;
      const { note } = c.req.valid("json");
      await schedules().unpause({ scheduleId, ...(note !== undefined ? { note } : {}), ...caller(c.get("principal")) });
      return c.json({ scheduleId, paused: false });
    })
    .post("/:id/trigger", valid("param", ScheduleParam), valid("json", TriggerBody), async (c) => {
      const scheduleId = c.req.valid("param").id;
      const { overlap } = c.req.valid("json");
      await schedules().trigger({ scheduleId, ...(overlap ? { overlap: overlap as ScheduleOverlap } : {}), ...caller(c.get("principal")) });
      return c.json({ scheduleId, triggered: true }, 202);
    });
}

/** The fields a body set (exactOptionalPropertyTypes: an absent field is not `undefined`). */
function withoutUndefined<T extends object>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as never;
}
