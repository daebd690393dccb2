/**
 * `agents.schedules`: agents on a schedule, on Temporal Schedules. A schedule's action starts
 * the run `agents.start` would (same workflow, input, search attributes, memo and summary, from
 * `runStartFields`), so a scheduled run defers, gates, streams and shows in the inbox like any
 * other; Temporal names each run `<scheduleId>-<the time it was scheduled for>`.
 */
import { randomUUID } from "node:crypto";
import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError as TemporalScheduleNotFoundError,
  WorkflowNotFoundError,
  type Client,
  type ScheduleDescription,
  type ScheduleHandle,
  type ScheduleOptionsStartWorkflowAction,
  type ScheduleSpec,
  type ScheduleSpecDescription,
  type ScheduleSummary,
  type ScheduleUpdateOptions,
} from "@temporalio/client";
import type { Duration } from "@temporalio/common";
import type { agentRun } from "../../workflows/runs/agent-run.js";
import type { AgentDefinition } from "../core/define-agent.js";
import { delayMs, durationMs } from "../core/duration.js";
import { InvalidDefinitionError } from "../core/errors/setup.js";
import { ScheduleAlreadyExistsError, ScheduleNotFoundError, ScheduleSpecInvalidError } from "../core/errors/schedules.js";
import type { Principal } from "../core/json.js";
import type { AgentRunInput } from "../core/run-state.js";
import { AgentIdKey, DeferralStatusKey } from "../core/search-attributes.js";
import { streamKeyOf } from "../core/stream-key.js";
import { randomKey } from "../stream/direct-proof.js";
import { askAuthorize, authorizeSchedule, type AuthorizeHook, type Caller } from "./authorize.js";
import { assertRunInputFits, runInputOf, runStartFields, uiSummaryOf, type UiSummary } from "./start-run.js";

/** What a schedule does when its next time comes while a run it started is still going (a parked run is still going). Temporal's `ScheduleOverlapPolicy`. */
export type ScheduleOverlap = "SKIP" | "BUFFER_ONE" | "BUFFER_ALL" | "CANCEL_OTHER" | "TERMINATE_OTHER" | "ALLOW_ALL";
const OVERLAPS: readonly ScheduleOverlap[] = ["SKIP", "BUFFER_ONE", "BUFFER_ALL", "CANCEL_OTHER", "TERMINATE_OTHER", "ALLOW_ALL"];

/**
 * When a schedule starts its runs: `{ every: "1h" }` (optionally `offset`), `{ cron: "0 9 * * MON-FRI" }`
 * (one expression or several, optionally a `timezone` such as `"Europe/Paris"`), or Temporal's
 * own `ScheduleSpec` (calendars, intervals, cron expressions, skips, start and end, jitter).
 * Intervals are whole seconds, at least one.
 */
export type AgentScheduleSpec = { every: Duration; offset?: Duration } | { cron: string | string[]; timezone?: string } | ScheduleSpec;

/** The run options a schedule's runs start with: what `agents.start` takes, less the run id (Temporal names each run). */
export interface ScheduledRunOptions {
  /** The user's message every run starts with. */
  prompt: string;
  /** See `RunOptions.timeout`: each run is cancelled (AI1005) this long after it started. */
  timeout?: Duration;
  /** See `RunOptions.maxHistoryEvents`. */
  maxHistoryEvents?: number;
  /** See `RunOptions.stream`. */
  stream?: boolean;
  /** See `RunOptions.uiSummary`. Default: the client's. */
  uiSummary?: UiSummary;
}

/** `schedules.create`: the agent, when, what each run is asked, and for whom. */
export interface CreateScheduleOptions extends ScheduledRunOptions, Caller {
  /** The schedule's id; its runs are `<scheduleId>-<scheduled time>`. At most 900 characters. Random (`<agent>-schedule-<uuid>`) when absent. */
  scheduleId?: string;
  /** The agent each run dispatches (a worker on the client's task queue must serve it, or each run fails with AI1002). */
  agent: AgentDefinition | string;
  spec: AgentScheduleSpec;
  /**
   * Who the schedule's runs act for (`ctx.principal`, what their approvals and inbox rows show),
   * and who `authorize` is asked about (`schedule.create`). Fixed when the schedule is made:
   * later calls as another principal change the schedule, never who its runs act for.
   */
  principal?: Principal;
  /** What happens when the next time comes while a run is still going (parked on an approval, say). Default `"SKIP"`: that time is skipped. */
  overlap?: ScheduleOverlap;
  /** After an outage of Temporal, how late a missed time may still start its run. Default Temporal's (one year); at least 10 seconds. */
  catchupWindow?: Duration;
  /** Create it paused: no run starts until `unpause` (a `trigger` still starts one). Default false. */
  paused?: boolean;
  /** A note for operators, shown by `describe` and Temporal's UI. */
  note?: string;
}

/** Which schedule a `schedules` method acts on, and for whom (`authorize` is asked about `principal`). */
export interface ScheduleTarget extends Caller {
  scheduleId: string;
}

/** `schedules.update`: what changes; what is left out stays as it was. Who the runs act for never changes. */
export interface UpdateScheduleOptions extends ScheduleTarget {
  spec?: AgentScheduleSpec;
  /** The prompt of the runs started from now on. */
  prompt?: string;
  overlap?: ScheduleOverlap;
  catchupWindow?: Duration;
}

/** `schedules.pause` and `unpause`: why, for operators. */
export interface PauseScheduleOptions extends ScheduleTarget {
  note?: string;
}

/** `schedules.trigger`: start one run now, whatever the spec says. */
export interface TriggerScheduleOptions extends ScheduleTarget {
  /** The overlap policy of this one run. Default `"ALLOW_ALL"` (Temporal's for a trigger): it starts even while another run is going. */
  overlap?: ScheduleOverlap;
}

/** `schedules.list`: which ones. */
export interface ListSchedulesOptions extends Caller {
  /** Only this agent's schedules. */
  agentId?: string;
  /** The most schedules listed, 1 to 1,000 (default 100). */
  limit?: number;
}

/** A run a schedule started. Read it, resume it or cancel it with the run id as any other run. */
export interface ScheduledRun {
  runId: string;
  /** The time the spec named for it (ISO 8601). */
  scheduledAt: string;
  /** When Temporal started it. */
  startedAt: string;
  /**
   * Where the run stood when the schedule was read (from Temporal's description of it, which
   * is not billed): `"parked"` while it waits on an approval or a deferral. Read its outcome
   * with `agents.result({ runId })` (a failure's typed error, e.g. AI1002 for an agent no
   * worker serves).
   */
  status: ScheduledRunStatus;
}

/** A scheduled run's status: Temporal's, with `"parked"` for a running run that waits on a person. */
export type ScheduledRunStatus = "running" | "parked" | "completed" | "failed" | "cancelled" | "terminated" | "timed-out" | "unknown";

/** A schedule as `list` shows it. */
export interface AgentScheduleSummary {
  scheduleId: string;
  agentId: string | undefined;
  paused: boolean;
  note?: string;
  /** The next times runs will start (ISO 8601). */
  nextRunTimes: string[];
  /** The latest runs it started, oldest first (Temporal keeps the last 10). */
  recentRuns: Array<Omit<ScheduledRun, "status">>;
}

/** A schedule as `describe` shows it. */
export interface AgentScheduleDescription {
  scheduleId: string;
  agentId: string;
  taskQueue: string;
  /** The prompt every run starts with. */
  prompt: string;
  /** Who the runs act for (the creator's principal). */
  runsAs: Principal | undefined;
  spec: ScheduleSpecDescription;
  overlap: ScheduleOverlap;
  catchupWindowMs: number;
  paused: boolean;
  note?: string;
  nextRunTimes: string[];
  /** The latest runs it started (Temporal keeps the last 10), oldest first. */
  recentRuns: ScheduledRun[];
  /** Runs started in all, triggers included. */
  runsStarted: number;
  /** Times skipped because a run was still going (`overlap: "SKIP"`). */
  skippedOverlap: number;
  /** Times missed because Temporal was down longer than `catchupWindow`. */
  missedCatchupWindow: number;
  createdAt: string;
}

// A run's id is the schedule's with Temporal's `-<RFC 3339 time>` after it: room for it within Temporal's 1,000 bytes.
const MAX_SCHEDULE_ID = 900;
const MAX_CRON = 500;
/** The schedule's memo field (not its runs') holding the `uiSummary` its runs were made with. */
const UI_SUMMARY_MEMO = "durableAgentsUiSummary";

/** The runs of an `AgentClient`, on a schedule. Every method asks the client's `authorize` (`schedule.*`). */
export class AgentSchedules {
  readonly #client: Client;
  readonly #taskQueue: string;
  readonly #authorize: AuthorizeHook | undefined;
  readonly #uiSummary: UiSummary | undefined;

  /** @internal Made by `AgentClient` (`agents.schedules`). */
  constructor(options: { client: Client; taskQueue: string; authorize: AuthorizeHook | undefined; uiSummary: UiSummary | undefined }) {
    this.#client = options.client;
    this.#taskQueue = options.taskQueue;
    this.#authorize = options.authorize;
    this.#uiSummary = options.uiSummary;
  }

  /**
   * Creates a schedule that starts a run of `agent` at each time `spec` names. AI1092 for a
   * spec, overlap or catchup window Temporal cannot take, AI1091 when the id is taken, AI1093
   * when `authorize` refuses `schedule.create`; nothing is created then.
   */
  async create(options: CreateScheduleOptions): Promise<{ scheduleId: string }> {
    const agentId = typeof options?.agent === "string" ? options.agent : options?.agent?.id;
    if (typeof agentId !== "string" || agentId === "") throw new InvalidDefinitionError({ subject: "schedule", problem: "pass an agent from defineAgent() or its id" });
    const scheduleId = options.scheduleId === undefined ? `${agentId}-schedule-${randomUUID()}` : scheduleIdOf(options.scheduleId);
    const input = runInputOf(agentId, options);
    assertRunInputFits(input);
    const spec = specOf(options.spec, scheduleId);
    const policies = policiesOf(options, scheduleId);
    if (options.paused !== undefined && typeof options.paused !== "boolean") throw new InvalidDefinitionError({ subject: `schedule "${scheduleId}"`, problem: "paused must be true or false" });
    const note = noteOf(options.note, scheduleId);
    const uiSummary = uiSummaryOf(options.uiSummary ?? this.#uiSummary, `schedule "${scheduleId}"`);
    await authorizeSchedule(this.#authorize, { operation: "schedule.create", principal: options.principal, scheduleId, agentId, runsAs: options.principal });
    await scheduleCall(scheduleId, () =>
      this.#client.schedule.create<typeof agentRun>({
        scheduleId,
        spec,
        // One stream key per schedule: every run it starts carries it (docs/security.md says why that is enough).
        action: this.#action(scheduleId, input, { uiSummary, streamKey: randomKey() }),
        ...(Object.keys(policies).length > 0 ? { policies } : {}),
        typedSearchAttributes: [{ key: AgentIdKey, value: agentId }],
        // What an update needs to make the runs' summary the same way again.
        memo: { [UI_SUMMARY_MEMO]: uiSummary },
        state: { ...(options.paused ? { paused: true } : {}), ...(note !== undefined ? { note } : {}) },
      }),
    );
    return { scheduleId };
  }

  /** The schedule: its agent, prompt, spec, policies, state, next times and latest runs. AI1090 when there is none, AI1093 when refused. */
  async describe(options: ScheduleTarget): Promise<AgentScheduleDescription> {
    const scheduleId = scheduleIdOf(options?.scheduleId);
    await authorizeSchedule(this.#authorize, { operation: "schedule.get", principal: options.principal, scheduleId });
    const described = await this.#describe(scheduleId);
    const input = inputOf(described);
    return {
      scheduleId,
      agentId: input.agentId,
      taskQueue: described.action.taskQueue,
      prompt: input.prompt,
      runsAs: input.principal,
      spec: described.spec,
      overlap: described.policies.overlap ?? "SKIP",
      catchupWindowMs: described.policies.catchupWindow,
      paused: described.state.paused,
      ...(described.state.note ? { note: described.state.note } : {}),
      nextRunTimes: described.info.nextActionTimes.map((d) => d.toISOString()),
      recentRuns: await Promise.all(described.info.recentActions.map(async (a) => ({ ...runOf(a), status: await this.#runStatus(a.action.workflow.workflowId) }))),
      runsStarted: described.info.numActionsTaken,
      skippedOverlap: described.info.numActionsSkippedOverlap,
      missedCatchupWindow: described.info.numActionsMissedCatchupWindow,
      createdAt: described.info.createdAt.toISOString(),
    };
  }

  /** The agent schedules of the namespace (the ones `authorize` allows, asked per row as `schedule.list`). Listing is eventually consistent: a schedule made a moment ago may be missing. */
  async list(options: ListSchedulesOptions = {}): Promise<{ schedules: AgentScheduleSummary[] }> {
    const limit = options.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new InvalidDefinitionError({ subject: "schedules.list()", problem: "limit must be a whole number from 1 to 1000" });
    if (options.agentId !== undefined && (typeof options.agentId !== "string" || options.agentId === "")) {
      throw new InvalidDefinitionError({ subject: "schedules.list()", problem: "agentId must be a non-empty string" });
    }
    const rows: AgentScheduleSummary[] = [];
    for await (const summary of this.#client.schedule.list({ pageSize: Math.min(limit, 1000) })) {
      if (summary.action?.workflowType !== "agentRun") continue;
      const row = summaryOf(summary);
      if (options.agentId !== undefined && row.agentId !== options.agentId) continue;
      rows.push(row);
      if (rows.length >= limit) break;
    }
    const hook = this.#authorize;
    if (!hook) return { schedules: rows };
    const verdicts = await Promise.all(rows.map((row) => askAuthorize(() => hook({ operation: "schedule.list", principal: options.principal, scheduleId: row.scheduleId, agentId: row.agentId }))));
    return { schedules: rows.filter((_, i) => verdicts[i]!.allowed) };
  }

  /** Stops starting runs until `unpause` (runs already started go on). AI1090, AI1093. */
  async pause(options: PauseScheduleOptions): Promise<void> {
    const scheduleId = scheduleIdOf(options?.scheduleId);
    const note = noteOf(options.note, scheduleId);
    await this.#act("schedule.pause", scheduleId, options.principal, (handle) => handle.pause(note ?? "paused through durable-agents"));
  }

  /** Starts runs again at the spec's next times (missed ones are not made up). AI1090, AI1093. */
  async unpause(options: PauseScheduleOptions): Promise<void> {
    const scheduleId = scheduleIdOf(options?.scheduleId);
    const note = noteOf(options.note, scheduleId);
    await this.#act("schedule.unpause", scheduleId, options.principal, (handle) => handle.unpause(note ?? "unpaused through durable-agents"));
  }

  /** Starts one run now, paused or not; `describe` lists it among the recent runs once Temporal has started it. AI1090, AI1093. */
  async trigger(options: TriggerScheduleOptions): Promise<void> {
    const scheduleId = scheduleIdOf(options?.scheduleId);
    const overlap = options.overlap === undefined ? undefined : overlapOf(options.overlap, scheduleId);
    await this.#act("schedule.trigger", scheduleId, options.principal, (handle) => handle.trigger(overlap));
  }

  /**
   * Changes the spec, prompt, overlap or catchup window of the runs to come; the runs started
   * already are untouched, and who they act for stays the creator's principal. AI1092 for a
   * change Temporal cannot take, AI1090, AI1093 (`schedule.update`, asked with the agent and
   * who the runs act for); nothing changes then.
   */
  async update(options: UpdateScheduleOptions): Promise<void> {
    const scheduleId = scheduleIdOf(options?.scheduleId);
    const spec = options.spec === undefined ? undefined : specOf(options.spec, scheduleId);
    const policies = policiesOf(options, scheduleId);
    if (options.prompt !== undefined && typeof options.prompt !== "string") throw new InvalidDefinitionError({ subject: `schedule "${scheduleId}"`, problem: "prompt must be a string" });
    const described = await this.#describe(scheduleId);
    const previous = inputOf(described);
    const input: Omit<AgentRunInput, "version"> = { ...previous, ...(options.prompt !== undefined ? { prompt: options.prompt } : {}) };
    assertRunInputFits(input);
    await authorizeSchedule(this.#authorize, { operation: "schedule.update", principal: options.principal, scheduleId, agentId: previous.agentId, runsAs: previous.principal });
    // The stream key stays: readers of runs started before and after the change prove the same one.
    const streamKey = streamKeyOf(described.action.memo) ?? randomKey();
    const uiSummary: UiSummary = described.memo?.[UI_SUMMARY_MEMO] === "agent-only" ? "agent-only" : "content";
    await scheduleCall(scheduleId, () =>
      this.#client.schedule.getHandle(scheduleId).update<typeof agentRun>(
        (current): ScheduleUpdateOptions<ScheduleOptionsStartWorkflowAction<typeof agentRun>> => ({
          spec: spec ?? current.spec,
          action: this.#action(scheduleId, input, { uiSummary, streamKey }),
          policies: { ...current.policies, ...policies },
          state: { paused: current.state.paused, ...(current.state.note !== undefined ? { note: current.state.note } : {}), ...(current.state.remainingActions !== undefined ? { remainingActions: current.state.remainingActions } : {}) },
          typedSearchAttributes: current.typedSearchAttributes,
        }),
      ),
    );
  }

  /** Deletes the schedule: no run starts from it again; the runs it started go on, and stay readable by their ids. AI1090, AI1093. */
  async delete(options: ScheduleTarget): Promise<void> {
    const scheduleId = scheduleIdOf(options?.scheduleId);
    await this.#act("schedule.delete", scheduleId, options.principal, (handle) => handle.delete());
  }

  /** An operation on an agent schedule: asked of the hook (AI1093) before anything is read, then AI1090 unless the schedule starts agent runs. */
  async #act(operation: "schedule.pause" | "schedule.unpause" | "schedule.trigger" | "schedule.delete", scheduleId: string, principal: Principal | undefined, act: (handle: ScheduleHandle) => Promise<void>): Promise<void> {
    await authorizeSchedule(this.#authorize, { operation, principal, scheduleId });
    await this.#describe(scheduleId);
    await scheduleCall(scheduleId, () => act(this.#client.schedule.getHandle(scheduleId)));
  }

  /** The start action of a run: `agents.start`'s, with the schedule's id as the base of the runs' ids. */
  #action(scheduleId: string, input: Omit<AgentRunInput, "version">, options: { uiSummary: UiSummary; streamKey: string }): ScheduleOptionsStartWorkflowAction<typeof agentRun> {
    return { type: "startWorkflow", workflowType: "agentRun", workflowId: scheduleId, taskQueue: this.#taskQueue, ...runStartFields(input, options) };
  }

  async #runStatus(runId: string): Promise<ScheduledRunStatus> {
    try {
      const run = await this.#client.workflow.getHandle(runId).describe();
      const status = run.status.name;
      if (status === "RUNNING" || status === "CONTINUED_AS_NEW") return run.typedSearchAttributes.get(DeferralStatusKey) === "deferred" ? "parked" : "running";
      if (status === "TIMED_OUT") return "timed-out";
      return (["COMPLETED", "FAILED", "CANCELLED", "TERMINATED"].includes(status) ? status.toLowerCase() : "unknown") as ScheduledRunStatus;
    } catch (err) {
      // Gone past the namespace's retention, say: the schedule still lists it.
      if (err instanceof WorkflowNotFoundError) return "unknown";
      throw err;
    }
  }

  /** The schedule, if it starts agent runs; AI1090 otherwise. Describing costs no billed action. */
  async #describe(scheduleId: string): Promise<ScheduleDescription> {
    const described = await scheduleCall(scheduleId, () => this.#client.schedule.getHandle(scheduleId).describe());
    if (described.action.type !== "startWorkflow" || described.action.workflowType !== "agentRun") throw new ScheduleNotFoundError({ scheduleId });
    return described;
  }
}

/** Temporal's schedule errors as the SDK's typed ones. */
async function scheduleCall<T>(scheduleId: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof TemporalScheduleNotFoundError) throw new ScheduleNotFoundError({ scheduleId });
    if (err instanceof ScheduleAlreadyRunning) throw new ScheduleAlreadyExistsError({ scheduleId });
    // The client's form of the server's "Invalid schedule spec" (a cron that does not parse, …).
    if (err instanceof TypeError) throw new ScheduleSpecInvalidError({ scheduleId, problem: err.message });
    const cause = (err as { cause?: { code?: unknown; details?: unknown } }).cause;
    // INVALID_ARGUMENT about anything else of the schedule (a catchup window, a jitter…).
    if (cause?.code === 3 && typeof cause.details === "string") throw new ScheduleSpecInvalidError({ scheduleId, problem: cause.details });
    throw err;
  }
}

/** A schedule id, checked: AI1001 for anything Temporal would refuse or a run id could not hold. */
function scheduleIdOf(value: unknown): string {
  if (typeof value !== "string" || value === "") throw new InvalidDefinitionError({ subject: "schedule", problem: "scheduleId must be a non-empty string" });
  if (value.length > MAX_SCHEDULE_ID) throw new InvalidDefinitionError({ subject: "schedule", problem: `scheduleId is longer than ${MAX_SCHEDULE_ID} characters` });
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new InvalidDefinitionError({ subject: "schedule", problem: "scheduleId must not contain control characters" });
  return value;
}

function noteOf(value: unknown, scheduleId: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.length > 1000) throw new InvalidDefinitionError({ subject: `schedule "${scheduleId}"`, problem: "note must be a string of at most 1000 characters" });
  return value;
}

function overlapOf(value: unknown, scheduleId: string): ScheduleOverlap {
  if (OVERLAPS.includes(value as ScheduleOverlap)) return value as ScheduleOverlap;
  throw new ScheduleSpecInvalidError({ scheduleId, problem: `overlap must be one of ${OVERLAPS.join(", ")}, not ${JSON.stringify(value)?.slice(0, 100)}` });
}

function policiesOf(options: { overlap?: unknown; catchupWindow?: Duration }, scheduleId: string): { overlap?: ScheduleOverlap; catchupWindow?: Duration } {
  return {
    ...(options.overlap !== undefined ? { overlap: overlapOf(options.overlap, scheduleId) } : {}),
    ...(options.catchupWindow !== undefined ? { catchupWindow: specDuration(options.catchupWindow, scheduleId, "catchupWindow", 10_000) } : {}),
  };
}

/** A duration of the spec or policies in ms: AI1092 (not AI1001) for one Temporal would not take, at least `minMs`. */
function specDuration(value: Duration, scheduleId: string, what: string, minMs: number, zero = false): number {
  let ms: number;
  try {
    ms = zero ? delayMs(value, what) : durationMs(value, what, "1h");
  } catch {
    throw new ScheduleSpecInvalidError({ scheduleId, problem: `${what} ${JSON.stringify(value)?.slice(0, 100)} is not a duration like "1h"` });
  }
  if (ms < minMs) throw new ScheduleSpecInvalidError({ scheduleId, problem: `${what} must be at least ${minMs / 1000} second(s)` });
  return ms;
}

/** The spec as Temporal takes it, checked for what the client can see is wrong; the server checks the rest (cron syntax) and refuses with AI1092 too. */
function specOf(spec: unknown, scheduleId: string): ScheduleSpec {
  if (typeof spec !== "object" || spec === null || Array.isArray(spec)) throw new ScheduleSpecInvalidError({ scheduleId, problem: "spec must be an object" });
  const s = spec as Record<string, unknown>;
  const simple = ["every", "cron"].filter((k) => k in s);
  if (simple.length > 1) throw new ScheduleSpecInvalidError({ scheduleId, problem: "spec takes every or cron, not both" });
  if ("every" in s) {
    const every = specDuration(s.every as Duration, scheduleId, "every", 1000);
    const offset = s.offset === undefined ? undefined : specDuration(s.offset as Duration, scheduleId, "offset", 0, true);
    return { intervals: [{ every, ...(offset !== undefined ? { offset } : {}) }] };
  }
  if ("cron" in s) {
    const crons = [s.cron].flat();
    if (crons.length === 0 || crons.some((c) => typeof c !== "string" || c.trim() === "" || c.length > MAX_CRON)) {
      throw new ScheduleSpecInvalidError({ scheduleId, problem: `cron must be a non-empty expression (or a list of them) of at most ${MAX_CRON} characters` });
    }
    if (s.timezone !== undefined && (typeof s.timezone !== "string" || s.timezone.length > 100)) throw new ScheduleSpecInvalidError({ scheduleId, problem: "timezone must be a time zone name such as \"Europe/Paris\"" });
    return { cronExpressions: crons as string[], ...(s.timezone !== undefined ? { timezone: s.timezone as string } : {}) };
  }
  const raw = spec as ScheduleSpec;
  const times = (raw.calendars?.length ?? 0) + (raw.intervals?.length ?? 0) + (raw.cronExpressions?.length ?? 0);
  if (times === 0) throw new ScheduleSpecInvalidError({ scheduleId, problem: "spec names no times: give every, cron, or a ScheduleSpec with calendars, intervals or cronExpressions" });
  for (const interval of raw.intervals ?? []) specDuration(interval?.every, scheduleId, "intervals[].every", 1000);
  return raw;
}

/** The run input a schedule's action carries (decoded by the client's data converter); AI1090 for an action that is not one. */
function inputOf(described: ScheduleDescription): Omit<AgentRunInput, "version"> {
  const input = (described.action.args as unknown[] | undefined)?.[0] as AgentRunInput | undefined;
  if (typeof input !== "object" || input === null || typeof input.agentId !== "string" || typeof input.prompt !== "string") throw new ScheduleNotFoundError({ scheduleId: described.scheduleId });
  const { version: _version, ...rest } = input;
  return rest;
}

function runOf(action: ScheduleDescription["info"]["recentActions"][number]): Omit<ScheduledRun, "status"> {
  return { runId: action.action.workflow.workflowId, scheduledAt: action.scheduledAt.toISOString(), startedAt: action.takenAt.toISOString() };
}

function summaryOf(summary: ScheduleSummary): AgentScheduleSummary {
  return {
    scheduleId: summary.scheduleId,
    agentId: summary.typedSearchAttributes?.get(AgentIdKey),
    paused: summary.state.paused,
    ...(summary.state.note ? { note: summary.state.note } : {}),
    nextRunTimes: summary.info.nextActionTimes.map((d) => d.toISOString()),
    recentRuns: summary.info.recentActions.map(runOf),
  };
}
