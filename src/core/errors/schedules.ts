/** Errors of agent schedules (`agents.schedules`): an unknown or taken id, a spec Temporal cannot read, a refused caller. */
import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

// The fields keep the whole id; the message stays readable whatever id a caller sent.
const clip = (id: string) => (id.length > 200 ? `${id.slice(0, 200)}…` : id);

export type ScheduleNotFoundFields = { scheduleId: string };

/** AI1090: no agent schedule has that id (never created, deleted, or a Temporal schedule that starts something other than agent runs). */
export class ScheduleNotFoundError extends DurableAgentsError<ScheduleNotFoundFields> {
  static readonly code = ErrorCode.ScheduleNotFound;
  readonly code = ErrorCode.ScheduleNotFound;
  constructor(f: ScheduleNotFoundFields) {
    super(`[AI1090] No agent schedule "${clip(f.scheduleId)}" exists in this namespace. Check the id (agents.schedules.list() shows them) and the namespace.`, f);
  }
}

export type ScheduleAlreadyExistsFields = { scheduleId: string };

/** AI1091: `schedules.create` with an id a schedule already has; that schedule is unchanged. */
export class ScheduleAlreadyExistsError extends DurableAgentsError<ScheduleAlreadyExistsFields> {
  static readonly code = ErrorCode.ScheduleAlreadyExists;
  readonly code = ErrorCode.ScheduleAlreadyExists;
  constructor(f: ScheduleAlreadyExistsFields) {
    super(`[AI1091] A schedule "${clip(f.scheduleId)}" exists already and was left as it is. Change it with schedules.update(), or delete it first, or choose another scheduleId.`, f);
  }
}

export type ScheduleSpecInvalidFields = {
  /** The schedule the spec was for, when it had an id. */
  scheduleId?: string;
  /** What is wrong, in Temporal's words where the server refused it. */
  problem: string;
};

/** AI1092: a schedule's spec (or overlap, catchup window) that Temporal cannot take; nothing was created or changed. */
export class ScheduleSpecInvalidError extends DurableAgentsError<ScheduleSpecInvalidFields> {
  static readonly code = ErrorCode.ScheduleSpecInvalid;
  readonly code = ErrorCode.ScheduleSpecInvalid;
  constructor(f: ScheduleSpecInvalidFields) {
    super(
      `[AI1092] Invalid schedule${f.scheduleId !== undefined ? ` "${clip(f.scheduleId)}"` : ""}: ${f.problem}. Nothing was created or changed. Give spec as { every: "1h" }, { cron: "0 9 * * MON-FRI" } or Temporal's ScheduleSpec.`,
      f,
    );
  }
}

export type ScheduleUnauthorizedFields = {
  /** The operation refused, e.g. `"schedule.pause"`. */
  operation: string;
  scheduleId: string;
  /** What the hook gave instead of `true`. */
  returned: string;
};

/** AI1093: the agent client's authorize hook did not return exactly `true` for a schedule operation; nothing was read or changed. */
export class ScheduleUnauthorizedError extends DurableAgentsError<ScheduleUnauthorizedFields> {
  static readonly code = ErrorCode.ScheduleUnauthorized;
  readonly code = ErrorCode.ScheduleUnauthorized;
  constructor(f: ScheduleUnauthorizedFields) {
    super(
      `[AI1093] ${f.operation} of schedule "${clip(f.scheduleId)}" refused: the authorize hook returned ${f.returned}, not true. Nothing was read or changed; call again as a principal the hook allows.`,
      f,
    );
  }
}
