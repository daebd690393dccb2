import { Context } from "@temporalio/activity";
import type { Client } from "@temporalio/client";
import type { AgentToolCallInput, RunToolCall, RunToolCallOutput, ThreadToolCall } from "../src/core/contracts.js";
import { deferSignal, type DeferOptions } from "../src/core/defer.js";
import type { AsyncToolContext } from "../src/core/define-async-tool.js";
import type { ToolContext } from "../src/core/define-tool.js";
import { DeferInFanOutError, DeferInThreadError, DeferralNotConfiguredError, DeferralSecretError, InvalidDefinitionError } from "../src/core/errors/setup.js";
import { approvalUrl } from "../src/deferral/approval-url.js";
import { DeferralCancelledError } from "../src/core/errors/deferrals.js";
import { PayloadTooLargeError } from "../src/core/errors/limits.js";
import type { ResolvedDeferralConfig } from "../src/deferral/config.js";
import { activityBinding, mintAnswerToken, mintResumeToken } from "../src/deferral/token.js";
import { resumeDigest } from "../src/core/proof.js";
import type { AgentRegistry } from "./agent-registry.js";
import { deferralRequest } from "./deferral-request.js";
import { dispatchSubRun } from "./dispatch.js";
import type { ToolCallScope } from "./tool-retry.js";
import type { ProgressReporter } from "./tool-progress.js";
import { toolIdempotencyKey } from "../src/core/step-summary.js";

export interface ToolHostDeps {
  registry: AgentRegistry;
  client: Client;
  deferral: ResolvedDeferralConfig | undefined;
}

/** What a host's context reports progress to. */
type Progress = Pick<ProgressReporter, "report">;

/**
 * The part of a tool call that depends on its host: what the handler's context holds,
 * and what `ctx.defer()` means. A run parks: the call ends in the deferral request (a
 * fan-out branch refuses with RC5051). A thread has no deferral to park in: the turn
 * fails with AI1023.
 */
export interface ToolHost {
  /** Whose call this is, for the tool's `shouldRetryError`. */
  scope: ToolCallScope;
  context(toolName: string): ToolContext;
  /** What the call ends in when the handler asks to defer (returned or thrown). */
  deferred(options: DeferOptions, toolName: string): RunToolCallOutput;
}

export function toolHost(input: AgentToolCallInput, deps: ToolHostDeps, progress: Progress = { report: () => undefined }): ToolHost {
  return input.host === "run" ? runHost(input, deps, progress) : threadHost(input, deps, progress);
}

/** What an async tool's callback sees (threads only), but for its answer token. */
export function asyncToolContext(input: ThreadToolCall): Omit<AsyncToolContext, "answerToken"> {
  return { threadId: input.workflowId, ...callBasics(input) };
}

/**
 * The answer token of an async call, bound to this namespace, thread, the thread's first
 * run, and the call (which use of its id it is, when the model reused one). Minted before the callback runs, so a worker without a secret fails
 * before any link goes out (the worker check at creation makes that rare).
 */
export function answerToken(input: ThreadToolCall, deps: ToolHostDeps, toolName: string): string {
  if (!deps.deferral) throw new DeferralSecretError({ reason: `no secret was given, and async tool "${toolName}" needs one to mint its answer token` });
  const info = Context.current().info;
  // The run id the activity sees is the current run's; a thread continues as new, so the workflow sends its first.
  const firstRunId = input.firstRunId ?? info.workflowExecution?.runId ?? "";
  return mintAnswerToken(deps.deferral.secret, input.toolCall.id, { namespace: info.namespace, workflowId: input.workflowId, firstRunId }, input.occurrence);
}

function runHost(input: RunToolCall, deps: ToolHostDeps, progress: Progress): ToolHost {
  const activity = Context.current();
  const restored = input.restored ?? false;
  const refuseInFanOut = () => {
    if (input.deferralRefused) throw new DeferInFanOutError({ where: input.deferralRefused });
  };
  // Deterministic for a call: the token a handler sent on any attempt is the one whose digest the deferral stores.
  const token = (toolName: string): string => {
    if (!deps.deferral) throw new DeferralNotConfiguredError({ where: `tool "${toolName}"` });
    // The token says whether resume must estimate the transcript first, so it can skip reading the record otherwise.
    const window = deps.registry.get(input.agentId).agent.contextWindow !== undefined;
    // Bound to the run's first execution: the activity's own, unless the run continued as new.
    const binding = activityBinding(activity.info);
    return mintResumeToken(deps.deferral.secret, input.deferralId, input.toolCall.id, {
      window,
      binding: binding && input.firstRunId ? { ...binding, firstRunId: input.firstRunId } : binding,
    });
  };
  return {
    scope: { runId: input.workflowId, toolCallId: input.toolCall.id },
    context: (toolName) => ({
      ...callBasics(input),
      runId: input.workflowId,
      deferralId: input.deferralId,
      deferral: {
        get token() {
          return token(toolName);
        },
        // The approval link, when the worker knows where the HTTP front door's page lives.
        get url() {
          const base = deps.deferral?.approvalUrl;
          return base === undefined ? undefined : approvalUrl(base, token(toolName));
        },
      },
      defer: (options) => {
        refuseInFanOut();
        // Cancellation already reached this call: refuse, so no link to a dead run goes out.
        if (activity.cancellationSignal.aborted && activity.cancellationDetails?.cancelRequested) {
          throw new DeferralCancelledError({ deferralId: input.deferralId });
        }
        // Checked now, so the handler (and then the model) hears of a bad schema or TTL at once.
        deferralOf(options ?? {}, toolName);
        return deferSignal(options);
      },
      restored,
      ...(input.resumedBy ? { resumedBy: input.resumedBy } : {}),
      dispatch: dispatcher(input, deps, restored, input.deferralRefused),
      progress: (data) => progress.report(data, toolName),
    }),
    deferred(options, toolName) {
      refuseInFanOut();
      // Only the digest goes to the workflow: it checks a resume's proof, and cannot forge one.
      return { deferred: { ...deferralOf(options, toolName), digest: resumeDigest(token(toolName)) } };
    },
  };

  function deferralOf(options: DeferOptions, toolName: string) {
    try {
      return deferralRequest(options, deps.deferral, `tool "${toolName}"`);
    } catch (err) {
      if (InvalidDefinitionError.isInstance(err) || PayloadTooLargeError.isInstance(err)) refusedDeferrals.add(err);
      throw err;
    }
  }
}

/** AI1001 and AI1016 refusals of `ctx.defer()` options (schema, TTL, meta too large): the handler's mistake, told to the model once. */
const refusedDeferrals = new WeakSet<object>();

/** Whether `err` is `ctx.defer()` refusing its options (AI1001, AI1016), whoever rethrew it. */
export function isRefusedDeferral(err: unknown): err is InvalidDefinitionError | PayloadTooLargeError {
  return typeof err === "object" && err !== null && refusedDeferrals.has(err);
}

function threadHost(input: ThreadToolCall, deps: ToolHostDeps, progress: Progress): ToolHost {
  const refuse = (toolName: string): never => {
    throw new DeferInThreadError({ threadId: input.workflowId, toolName });
  };
  return {
    scope: { threadId: input.workflowId, toolCallId: input.toolCall.id },
    context: (toolName) => ({
      ...asyncToolContext(input),
      runId: input.workflowId,
      deferralId: "",
      deferral: {
        get token(): string {
          return refuse(toolName);
        },
      },
      defer: () => refuse(toolName),
      restored: false,
      ...(input.approved?.by ? { resumedBy: input.approved.by } : {}),
      dispatch: dispatcher(input, deps, false, undefined),
      progress: (data) => progress.report(data, toolName),
    }),
    deferred: (_options, toolName) => refuse(toolName),
  };
}

/** What every tool call's context knows: the call, its host and this attempt. */
function callBasics(input: AgentToolCallInput) {
  const activity = Context.current();
  return {
    agentId: input.agentId,
    toolCallId: input.toolCall.id,
    idempotencyKey: toolIdempotencyKey(input.workflowId, input.toolCall.id, input.occurrence),
    principal: input.principal,
    signal: activity.cancellationSignal,
    attempt: activity.info.attempt,
  };
}

function dispatcher(input: AgentToolCallInput, deps: ToolHostDeps, restored: boolean, deferralRefused: string | undefined): ToolContext["dispatch"] {
  // A handler that dispatches one agent twice gets two runs, counted in the order it asks for them.
  const dispatched = new Map<string, number>();
  return (agent, { prompt }) => {
    const agentId = typeof agent === "string" ? agent : agent.id;
    const nth = (dispatched.get(agentId) ?? 0) + 1;
    dispatched.set(agentId, nth);
    return dispatchSubRun(
      deps,
      {
        parentId: input.workflowId,
        toolCallId: input.toolCall.id,
        ...(input.occurrence !== undefined ? { occurrence: input.occurrence } : {}),
        taskQueue: input.taskQueue,
        principal: input.principal,
        restored,
        ...(deferralRefused ? { deferralRefused } : {}),
      },
      agentId,
      prompt,
      nth,
    );
  };
}
