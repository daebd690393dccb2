import type { DeferralStatus } from "../core/deferral-record.js";
import { RunUnauthorizedError } from "../core/errors/runs.js";
import { ScheduleUnauthorizedError } from "../core/errors/schedules.js";
import type { Decision } from "../core/approval.js";
import type { JsonObject, JsonValue, Principal } from "../core/json.js";

/**
 * What `AgentClient` asks its hook about:
 *
 * - `run.start`: start a run, or attach to the run that already has `runId` (`start`, `run`).
 * - `run.state`: read a run's live state, its transcript or its stream (`state`, `listMessages`, `streamUpdates`, `followUpdates`, and the same on a handle).
 * - `run.result`: wait for and read a run's outcome (`result`, `handle().result`, `handle().settled`, `run` once started).
 * - `run.cancel`: cancel a run (`cancel`, `handle().cancel`).
 * - `deferral.get`: read a deferral record (`deferrals.get`, `approvals.get`), and before `approvals.decide` reads the request it decides.
 * - `approval.context`: see what led to a request (`approvals.get`'s `context`: the user's message, the agent's last messages, the tool results), with its calls and meta, asked after `deferral.get`: a refusal leaves `context` out, no error.
 * - `deferral.list`: one row of `deferrals.list`, asked per row: a refused row is left out.
 * - `deferral.replace`: rewrite a waiting run's thread (`replaceDeferredThread`, `deferrals.replaceStepState`), with `trustTranscript: true` when the caller vouches for it.
 * - `deferral.deny`: deny a waiting deferral (`deferrals.deny`).
 * - `resume`: answer a deferral with its token (`resume`); the approval page previews one with `payload: undefined`.
 * - `permission.list`: list a run's or thread's standing permissions (`approvals.permissions`); `host` says which, `runId` is its id.
 * - `permission.revoke`: end one (`approvals.revoke`), with its `permissionId`.
 */
export type RunOperation =
  | "run.start"
  | "run.state"
  | "run.result"
  | "run.cancel"
  | "deferral.get"
  | "approval.context"
  | "deferral.list"
  | "deferral.replace"
  | "deferral.deny"
  | "resume"
  | "permission.list"
  | "permission.revoke";

/**
 * What `ThreadsClient` asks its hook about:
 *
 * - `thread.create`: `createThread` (with the agent, and whether a transcript is seeded).
 * - `thread.list`: one row of `listThreads`, asked per row: a refused row is left out.
 * - `thread.get`: `state`, `settled`, and before `decide` reads the request it decides.
 * - `thread.messages`: `listMessages`.
 * - `thread.stream`: `streamUpdates`, `followUpdates` (once, as it starts), the HTTP event stream.
 * - `thread.send`: `sendMessage`.
 * - `thread.addMessage`: `addMessage`.
 * - `thread.resume`: `resumeThread`.
 * - `thread.stop`: `stopThread`.
 * - `thread.delete`: `deleteThread`.
 * - `thread.toolResult`, `thread.toolError`: `addToolResult`, `addToolError` (with the tool call and its tool's name).
 * - `thread.decide`: `decide`, on an approval request of the thread (with its calls, its meta and the decisions).
 */
export type ThreadOperation =
  | "thread.create"
  | "thread.list"
  | "thread.get"
  | "thread.messages"
  | "thread.stream"
  | "thread.send"
  | "thread.addMessage"
  | "thread.resume"
  | "thread.stop"
  | "thread.delete"
  | "thread.toolResult"
  | "thread.toolError"
  | "thread.decide";

/**
 * What `agents.schedules` asks its hook about (the client's `authorize`):
 *
 * - `schedule.create`: `create`, with the agent and the principal its runs will act for (the caller's).
 * - `schedule.list`: one row of `list`, asked per row: a refused row is left out.
 * - `schedule.get`: `describe`.
 * - `schedule.pause`, `schedule.unpause`: `pause`, `unpause`.
 * - `schedule.trigger`: `trigger` (start one run now).
 * - `schedule.update`: `update`, with the agent and the principal the runs act for.
 * - `schedule.delete`: `delete` (the runs it started are left running).
 *
 * The runs a schedule starts are ordinary runs: reading, resuming or cancelling one asks the
 * run operations (`run.state`, `resume`, …) about its run id.
 */
export type ScheduleOperation =
  | "schedule.create"
  | "schedule.list"
  | "schedule.get"
  | "schedule.pause"
  | "schedule.unpause"
  | "schedule.trigger"
  | "schedule.update"
  | "schedule.delete";

/**
 * Who a call is made for: what the `authorize` hook is asked about. Every client method
 * takes it beside its own options (the HTTP front door passes the authenticated principal);
 * without it the hook is asked about an anonymous caller.
 */
export interface Caller {
  /** The caller, as the hook sees it. */
  principal?: Principal;
}

/** Every operation an authorize hook is asked about. */
export type AuthorizeOperation = RunOperation | ThreadOperation | ScheduleOperation;

/** What every authorize request holds: the operation asked about and who asks. */
export interface AuthorizeRequestOf<Operation extends AuthorizeOperation> {
  operation: Operation;
  /** Who is calling: the `principal` the call was made with (the HTTP front door passes the authenticated one), `undefined` when anonymous. */
  principal: Principal | undefined;
}

/** The deferral a resume answers, as the hook sees it. */
export interface ResumeDeferral {
  id: string;
  meta: JsonObject;
  agentId?: string;
  /** The tool whose call deferred. */
  toolName?: string;
  status: DeferralStatus;
  /** The principal the run deferred as, restored from storage (`restored: true`), not re-verified. */
  principal: (Principal & { restored: true }) | undefined;
  deferredAt: string;
  expiresAt: string;
}

/** What an `AgentClient` hook is asked: the operation and the run (and deferral) it concerns. */
export type RunAuthorizeRequest = { threadId?: never; scheduleId?: never } & (
  | (AuthorizeRequestOf<"run.start"> & { runId: string; agentId: string })
  | (AuthorizeRequestOf<"run.state" | "run.result" | "run.cancel"> & { runId: string })
  | (AuthorizeRequestOf<"deferral.get" | "deferral.deny"> & { runId: string; deferralId: string })
  | (AuthorizeRequestOf<"deferral.replace"> & {
      runId: string;
      deferralId: string;
      /** Present (`true`) when the rewrite is vouched for: it may add tool calls, tool results and system messages the run did not have. */
      trustTranscript?: true;
    })
  | (AuthorizeRequestOf<"deferral.list"> & { runId: string; deferralId: string; agentId?: string; status: DeferralStatus })
  | (AuthorizeRequestOf<"permission.list"> & {
      /** The run's id, or the thread's (`host: "thread"`). */
      runId: string;
      host: "run" | "thread";
    })
  | (AuthorizeRequestOf<"permission.revoke"> & {
      /** The run's id, or the thread's (`host: "thread"`). */
      runId: string;
      host: "run" | "thread";
      permissionId: string;
    })
  | (AuthorizeRequestOf<"approval.context"> & {
      runId: string;
      deferralId: string;
      agentId?: string;
      /** The calls waiting for a decision, with their arguments as the model wrote them. */
      calls: Array<{ toolCallId: string; toolName: string; arguments: string }>;
      /** The request's meta (`requires` and the like). */
      meta: JsonObject;
    })
  | (AuthorizeRequestOf<"resume"> & {
      runId: string;
      deferralId: string;
      toolCallId: string;
      toolName?: string;
      agentId?: string;
      deferral: ResumeDeferral;
      /** The answer; `undefined` when the approval page only previews the resume. */
      payload: JsonValue | undefined;
      /**
       * The deferring principal as the caller re-verified it (`ResumeOptions.reverify`): a
       * frozen copy, and exactly what is sent if the hook allows. Check it against your own
       * live credential check: a resumed run acts for it as verified.
       */
      reverify?: Readonly<Principal>;
      /**
       * On an approval request: the ids of the calls this resume decides (its `decisions`),
       * some of the request's calls or all; the others stay waiting for a later decision.
       */
      decides?: string[];
    })
);

/** What a `ThreadsClient` hook is asked: the operation and the thread it concerns. */
export type ThreadAuthorizeRequest = { runId?: never; scheduleId?: never } & (
  | (AuthorizeRequestOf<"thread.create"> & {
      threadId: string;
      agentId: string;
      /** A transcript is seeded (`messages`). */
      seeded: boolean;
      /** The caller vouched for the seeded transcript (`trustTranscript: true`). */
      trustTranscript: boolean;
    })
  | (AuthorizeRequestOf<"thread.list"> & { threadId: string; agentId?: string })
  | (AuthorizeRequestOf<"thread.toolResult" | "thread.toolError"> & {
      threadId: string;
      toolCallId: string;
      /** The tool of the open call with that id; `undefined` when no such call is open (the thread then refuses the answer itself). */
      toolName: string | undefined;
    })
  | (AuthorizeRequestOf<"thread.get" | "thread.messages" | "thread.stream" | "thread.send" | "thread.addMessage" | "thread.resume" | "thread.stop" | "thread.delete"> & {
      threadId: string;
    })
  | (AuthorizeRequestOf<"thread.decide"> & {
      threadId: string;
      approvalId: string;
      /** The calls waiting for the decision, with their arguments as the model wrote them. */
      calls: Array<{ toolCallId: string; toolName: string; arguments: string }>;
      /** The request's meta (its tools' `approval.meta`, merged): who may decide, as you routed it. */
      meta: JsonObject;
      /** What the caller decides: one entry per call it decides (some of the request's calls, or all). */
      decisions: Decision[];
      /** The ids of the calls this decision decides (the others stay waiting for a later one). */
      decides?: string[];
    })
);

/** What an `AgentClient` hook is asked about a schedule (`agents.schedules`): the operation and the schedule it concerns. */
export type ScheduleAuthorizeRequest = { runId?: never; threadId?: never } & (
  | (AuthorizeRequestOf<"schedule.create" | "schedule.update"> & {
      scheduleId: string;
      agentId: string;
      /** Who the schedule's runs act for (their `ctx.principal`): the creator's principal, kept by `update`. */
      runsAs: Principal | undefined;
    })
  | (AuthorizeRequestOf<"schedule.list"> & { scheduleId: string; agentId: string | undefined })
  | (AuthorizeRequestOf<"schedule.get" | "schedule.pause" | "schedule.unpause" | "schedule.trigger" | "schedule.delete"> & { scheduleId: string })
);

/** What every authorize hook is asked; narrow on `operation` (or on `runId` / `threadId` / `scheduleId`: each request has exactly one). */
export type AuthorizeRequest = RunAuthorizeRequest | ThreadAuthorizeRequest | ScheduleAuthorizeRequest;

/**
 * Decides one client operation. Only an exact `true` allows; anything else (false,
 * undefined, `"yes"`, `1`, a thrown error) refuses with the operation's code (RC5056 for
 * `resume`, AI1013 for the other run and deferral operations, AI1021 for threads, AI1093
 * for schedules) and
 * nothing is read or changed. On listings (`deferral.list`, `thread.list`) a refusal
 * leaves the row out. The same function serves both clients.
 */
export type AuthorizeHook = (request: AuthorizeRequest) => boolean | Promise<boolean>;

/**
 * Asks an authorize hook and reads its verdict the one way the SDK does: only an exact
 * `true` allows. Anything else (false, a truthy non-boolean, undefined, a thrown error) is
 * a refusal, described as `returned` for the typed error the caller raises.
 */
export async function askAuthorize(ask: () => unknown): Promise<{ allowed: true } | { allowed: false; returned: string }> {
  let verdict: unknown;
  try {
    verdict = await ask();
  } catch (err) {
    return { allowed: false, returned: `an error (${err instanceof Error ? err.message : String(err)})` };
  }
  if (verdict === true) return { allowed: true };
  return { allowed: false, returned: describe(verdict) };
}

// Bounded, and never a function's source or a throw of its own (a bigint, a cycle).
function describe(verdict: unknown): string {
  if (verdict === undefined) return "undefined";
  if (typeof verdict === "function" || typeof verdict === "symbol" || typeof verdict === "bigint") return `a ${typeof verdict}`;
  try {
    const text = JSON.stringify(verdict);
    return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    return `an unserialisable ${typeof verdict}`;
  }
}

/** The run operations refused with AI1013 (resume has RC5056; listings filter). */
export type GatedRunRequest = Extract<RunAuthorizeRequest, { operation: Exclude<RunOperation, "resume" | "deferral.list" | "approval.context"> }>;

/** Asks `hook` about a run or deferral operation; AI1013 unless it returns exactly `true`. No hook allows everything. */
export async function authorizeRun(hook: AuthorizeHook | undefined, request: GatedRunRequest): Promise<void> {
  if (!hook) return;
  const verdict = await askAuthorize(() => hook(request));
  if (verdict.allowed) return;
  throw new RunUnauthorizedError({
    operation: request.operation,
    runId: request.runId,
    ...("deferralId" in request ? { deferralId: request.deferralId } : {}),
    returned: verdict.returned,
  });
}

/** The schedule operations refused with AI1093 (listings filter). */
export type GatedScheduleRequest = Extract<ScheduleAuthorizeRequest, { operation: Exclude<ScheduleOperation, "schedule.list"> }>;

/** Asks `hook` about a schedule operation; AI1093 unless it returns exactly `true`. No hook allows everything. */
export async function authorizeSchedule(hook: AuthorizeHook | undefined, request: GatedScheduleRequest): Promise<void> {
  if (!hook) return;
  const verdict = await askAuthorize(() => hook(request));
  if (verdict.allowed) return;
  throw new ScheduleUnauthorizedError({ operation: request.operation, scheduleId: request.scheduleId, returned: verdict.returned });
}
