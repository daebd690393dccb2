import { InvalidArgumentError, type Command } from "commander";
import type { AgentScheduleSpec, ScheduleOverlap } from "../client/schedules.js";
import { withAgents, type ConnectionFlags } from "./connect.js";
import { duration, positiveInt } from "./flags.js";
import { age, output, table } from "./output.js";
import { oneLine } from "../core/printable.js";
import { FlagError } from "./render.js";
import type { Globals } from "./flags.js";

const OVERLAPS = ["SKIP", "BUFFER_ONE", "BUFFER_ALL", "CANCEL_OTHER", "TERMINATE_OTHER", "ALLOW_ALL"];

/** An overlap policy, as Temporal names it (`skip` and `allow-all` spellings too). */
function overlap(value: string): ScheduleOverlap {
  const name = value.trim().toUpperCase().replace(/-/g, "_");
  if (!OVERLAPS.includes(name)) throw new InvalidArgumentError(`Expected one of ${OVERLAPS.join(", ")}.`);
  return name as ScheduleOverlap;
}

interface SpecFlags {
  every?: number;
  cron?: string;
  timezone?: string;
}

/** `--every` or `--cron` (one of them; `--timezone` with `--cron`): a usage mistake otherwise. */
function specOf(flags: SpecFlags, required: boolean): AgentScheduleSpec | undefined {
  if (flags.every !== undefined && flags.cron !== undefined) throw new FlagError("give --every or --cron, not both");
  if (flags.timezone !== undefined && flags.cron === undefined) throw new FlagError("--timezone goes with --cron");
  if (flags.every !== undefined) return { every: flags.every };
  if (flags.cron !== undefined) return { cron: flags.cron, ...(flags.timezone ? { timezone: flags.timezone } : {}) };
  if (required) throw new FlagError("give --every <duration> or --cron <expression>");
  return undefined;
}

/** `durable-agents schedules …`: agents on a schedule (Temporal Schedules whose runs are ordinary agent runs). */
export function scheduleCommands(program: Command, globals: () => Globals & ConnectionFlags): void {
  const schedules = program.command("schedules").description("Agents on a schedule: create, list, describe, pause, unpause, trigger, update, delete");

  schedules
    .command("create <agentId>")
    .description("Start a run of the agent at each time given (a worker on the task queue must serve it); prints the schedule's id")
    .requiredOption("--prompt <text>", "the user's message every run starts with")
    .option("--every <duration>", "an interval: 1h, 30m, 1d (at least 1s)", duration)
    .option("--cron <expression>", 'a cron expression, e.g. "0 9 * * MON-FRI"')
    .option("--timezone <name>", "the cron's time zone, e.g. Europe/Paris (default UTC)")
    .option("--schedule-id <id>", "the schedule's id (its runs are <id>-<time>)")
    .option("--overlap <policy>", "when a run is still going (parked, say): SKIP (default), ALLOW_ALL, BUFFER_ONE, …", overlap)
    .option("--catchup-window <duration>", "how late a time missed in an outage may still run", duration)
    .option("--paused", "create it paused")
    .option("--note <text>", "a note for operators")
    .action(async (agentId: string, flags: SpecFlags & { prompt: string; scheduleId?: string; overlap?: ScheduleOverlap; catchupWindow?: number; paused?: boolean; note?: string }) => {
      const g = globals();
      const spec = specOf(flags, true)!;
      await withAgents(g, async (agents) => {
        const { scheduleId } = await agents.schedules.create({
          agent: agentId,
          prompt: flags.prompt,
          spec,
          ...(flags.scheduleId ? { scheduleId: flags.scheduleId } : {}),
          ...(flags.overlap ? { overlap: flags.overlap } : {}),
          ...(flags.catchupWindow !== undefined ? { catchupWindow: flags.catchupWindow } : {}),
          ...(flags.paused ? { paused: true } : {}),
          ...(flags.note !== undefined ? { note: flags.note } : {}),
        });
        output(g).result({ scheduleId }, () => [oneLine(scheduleId)]);
      });
    });

  schedules
    .command("list")
    .description("Agent schedules of the namespace")
    .option("--agent <id>", "only this agent's")
    .option("--limit <n>", "at most this many", positiveInt, 100)
    .action(async (flags: { agent?: string; limit: number }) => {
      const g = globals();
      await withAgents(g, async (agents) => {
        const page = await agents.schedules.list({ limit: flags.limit, ...(flags.agent ? { agentId: flags.agent } : {}) });
        output(g).result(page, () =>
          table(
            ["SCHEDULE", "AGENT", "STATE", "NEXT", "LAST RUN"],
            page.schedules.map((s) => [s.scheduleId, s.agentId ?? "-", s.paused ? "paused" : "active", age(s.nextRunTimes[0]), s.recentRuns.at(-1)?.runId ?? "-"]),
          ),
        );
      });
    });

  schedules
    .command("describe <scheduleId>")
    .description("Agent, prompt, spec, policies, next times and the latest runs with their status")
    .action(async (scheduleId: string) => {
      const g = globals();
      await withAgents(g, async (agents) => {
        const d = await agents.schedules.describe({ scheduleId });
        output(g).result(d, () => [
          `schedule ${oneLine(d.scheduleId)} (agent ${oneLine(d.agentId)}, task queue ${oneLine(d.taskQueue)})`,
          `state    ${d.paused ? "paused" : "active"}${d.note ? ` (${oneLine(d.note)})` : ""}, overlap ${d.overlap}`,
          `prompt   ${oneLine(d.prompt)}`,
          `runs as  ${d.runsAs ? oneLine(JSON.stringify(d.runsAs)) : "(anonymous)"}`,
          `started  ${d.runsStarted}, skipped (overlap) ${d.skippedOverlap}, missed ${d.missedCatchupWindow}`,
          `next     ${d.nextRunTimes.slice(0, 3).join(", ") || "-"}`,
          ...table(["RUN", "STATUS", "SCHEDULED"], d.recentRuns.map((r) => [r.runId, r.status, r.scheduledAt])).map((l) => `  ${l}`),
        ]);
      });
    });

  for (const [name, description] of [
    ["pause", "Start no run until unpaused (runs going on are left alone)"],
    ["unpause", "Start runs again at the next times"],
  ] as const) {
    schedules
      .command(`${name} <scheduleId>`)
      .description(description)
      .option("--note <text>", "why, for operators")
      .action(async (scheduleId: string, flags: { note?: string }) => {
        const g = globals();
        await withAgents(g, async (agents) => {
          await agents.schedules[name]({ scheduleId, ...(flags.note !== undefined ? { note: flags.note } : {}) });
          output(g).result({ scheduleId, paused: name === "pause" }, () => [`${name}d: ${oneLine(scheduleId)}`]);
        });
      });
  }

  schedules
    .command("trigger <scheduleId>")
    .description("Start one run now, paused or not")
    .option("--overlap <policy>", "this run's overlap policy (default ALLOW_ALL)", overlap)
    .action(async (scheduleId: string, flags: { overlap?: ScheduleOverlap }) => {
      const g = globals();
      await withAgents(g, async (agents) => {
        await agents.schedules.trigger({ scheduleId, ...(flags.overlap ? { overlap: flags.overlap } : {}) });
        output(g).result({ scheduleId, triggered: true }, () => [`triggered: ${oneLine(scheduleId)}`]);
      });
    });

  schedules
    .command("update <scheduleId>")
    .description("Change the prompt, the times or the policies of the runs to come")
    .option("--prompt <text>", "the new prompt")
    .option("--every <duration>", "a new interval", duration)
    .option("--cron <expression>", "a new cron expression")
    .option("--timezone <name>", "the cron's time zone")
    .option("--overlap <policy>", "a new overlap policy", overlap)
    .option("--catchup-window <duration>", "a new catchup window", duration)
    .action(async (scheduleId: string, flags: SpecFlags & { prompt?: string; overlap?: ScheduleOverlap; catchupWindow?: number }) => {
      const g = globals();
      const spec = specOf(flags, false);
      await withAgents(g, async (agents) => {
        await agents.schedules.update({
          scheduleId,
          ...(spec ? { spec } : {}),
          ...(flags.prompt !== undefined ? { prompt: flags.prompt } : {}),
          ...(flags.overlap ? { overlap: flags.overlap } : {}),
          ...(flags.catchupWindow !== undefined ? { catchupWindow: flags.catchupWindow } : {}),
        });
        output(g).result({ scheduleId, updated: true }, () => [`updated: ${oneLine(scheduleId)}`]);
      });
    });

  schedules
    .command("delete <scheduleId>")
    .description("Delete the schedule (the runs it started go on)")
    .action(async (scheduleId: string) => {
      const g = globals();
      await withAgents(g, async (agents) => {
        await agents.schedules.delete({ scheduleId });
        output(g).result({ scheduleId, deleted: true }, () => [`deleted: ${oneLine(scheduleId)}`]);
      });
    });
}
