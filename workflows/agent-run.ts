import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  workflowInfo,
} from "@temporalio/workflow";
import { DefinitionChangedError } from "../src/core/errors/definition-changed.js";
import { DeferralExpiredError } from "../src/core/errors/deferral-expired.js";
import { MaxTurnsError } from "../src/core/errors/max-turns.js";
import { RunCancelledError } from "../src/core/errors/run-cancelled.js";
import { StepStateError } from "../src/core/errors/step-state.js";
import { addUsage, emptyUsage, type ChatMessage, type ToolCall } from "../src/core/messages.js";
import type { AgentActivities, AgentModelCallInput, DeferralRequest, ModelCallInput, PreparedAgent, ToolCallOutput } from "../src/core/contracts.js";
import { fingerprint } from "../src/core/thread-transcript.js";
import { legacyOptions } from "./activity-options.js";
import { agentSteps, type AgentSteps } from "./agent-steps.js";
import { DeferralBook, type ParkRequest } from "./deferral-book.js";
import type { DeferralRecord } from "../src/core/deferral-record.js";
import { cancelUpdate, runStateQuery, threadQuery } from "../src/core/wire/run.js";
import type { AgentResult, AgentRunInput, RunState } from "../src/core/run-state.js";

const SIBLING_DEFERRED =
  "Error: a sibling tool call already deferred this run, so this call did not run. Call it again after the run resumes.";

const { prepareAgent } = proxyLocalActivities<AgentActivities>(legacyOptions.runPrepare);

/**
 * One agent run: model call → the batch of tool calls in parallel → repeat, until the
 * model answers without tools or the turns run out. A tool may defer the run: it parks
 * until a resume lands the payload as that call's result. The system prompt and tool
 * list are never in workflow state: the worker prepares them for each model call.
 */
export async function agentRun(input: AgentRunInput): Promise<AgentResult> {
  const state: RunState = {
    agentId: input.agentId,
    status: "running",
    messages: [{ role: "user", content: input.prompt }],
    turnsUsed: 0,
    maxTurns: undefined,
    usage: emptyUsage(),
    restored: input.restored ?? false,
    ...(input.principal ? { principal: input.principal } : {}),
  };
  let prepared: PreparedAgent | undefined;
  // What the worker's thread cache knows: `epoch` changes when a rewrite replaces the thread.
  const thread = { epoch: 0, sentLength: 0 };
  // The claimed deferral whose definition the next model call must still match.
  const definitionCheck: { record?: DeferralRecord } = {};
  const current = input.version !== undefined && input.version >= 2;
  // From version 3 on the run's steps go through the agent-step layer; older runs keep
  // scheduling the activities their histories hold.
  const steps = input.version !== undefined && input.version >= 3 ? agentSteps() : undefined;
  const book = new DeferralBook({
    deferResumedStatus: current,
    async verify(record) {
      // Runs started with this version check the definition in the first model call after
      // the resume: one round trip less between resume() and the model than a local
      // activity before the claim, which older runs (and their histories) still use. It is
      // an input field rather than a patch so it adds no search-attribute write per resume.
      if (current) {
        definitionCheck.record = record;
        return;
      }
      prepared = await reprepare(state.agentId, record);
    },
    stepState: (record) => ({
      agentId: state.agentId,
      messages: state.messages,
      deferredToolCallId: record.toolCallId,
      turnsUsed: state.turnsUsed,
      usage: state.usage,
    }),
    replaceMessages(_record, messages) {
      state.messages = messages;
      thread.epoch += 1;
      thread.sentLength = messages.length;
    },
  });
  setHandler(runStateQuery, () => ({ ...state, status: book.phase, ...deferralIdOf(book.current()) }));
  setHandler(threadQuery, ({ epoch, length }) => {
    // A model call prepared before a rewrite must not read the rewritten thread as its prefix.
    if (epoch !== thread.epoch) throw new Error(`thread epoch ${epoch} is stale (now ${thread.epoch})`);
    return state.messages.slice(0, length);
  });

  // Everything the run does happens in this scope, so `cancel()`, a timeout and a cancel
  // from Temporal itself all reach the model call or tool in flight, or the deferral.
  const scope = new CancellationScope();
  const cancellation: Cancellation = { scope };
  const cancel = (reason: string) => {
    cancellation.reason ??= reason;
    scope.cancel();
  };
  setHandler(cancelUpdate, ({ reason } = {}) => cancel(reason || "cancelled"));
  if (input.timeoutMs) {
    void CancellationScope.nonCancellable(() => sleep(input.timeoutMs!)).then(() => cancel(`timed out after ${input.timeoutMs}ms`));
  }

  return book.run(
    async () => {
      try {
        return await scope.run(async () => {
          prepared = steps ? await steps.describe({ agentId: input.agentId }) : await prepareAgent({ agentId: input.agentId });
          state.maxTurns = prepared.maxTurns;
          return loop(state, book, thread, cancellation, () => prepared!, input.deferralRefused, definitionCheck, steps);
        });
      } catch (err) {
        if (cancellation.reason !== undefined || scope.consideredCancelled || isCancellation(err)) {
          // A cancelled run leaves no live approval link behind.
          book.denyWaiting("AI1005");
          throw new RunCancelledError({
            reason: cancellation.reason ?? "the workflow was cancelled",
            turnsUsed: state.turnsUsed,
            usage: state.usage,
          }).toFailure();
        }
        // Surface the activity's typed failure itself, so the caller sees its code on top.
        throw err instanceof ActivityFailure && err.cause instanceof ApplicationFailure ? err.cause : err;
      }
    },
    // Resumes are answered with this; the full thread stays available through the run's result.
    (result) => ({ status: result.status, text: result.text, turnsUsed: result.turnsUsed, usage: result.usage }),
  );
}

interface Cancellation {
  scope: CancellationScope;
  reason?: string;
}

async function loop(
  state: RunState,
  book: DeferralBook,
  thread: { epoch: number; sentLength: number },
  cancellation: Cancellation,
  prepared: () => PreparedAgent,
  deferralRefused: string | undefined,
  definitionCheck: { record?: DeferralRecord },
  steps: AgentSteps | undefined,
): Promise<AgentResult> {
  const options = legacyOptions.runCall(prepared().timeouts);
  const { callModel } = proxyActivities<AgentActivities>(options);
  const onQueue = new Map<string | undefined, AgentActivities["callTool"]>();
  // A tool with its own `queue` runs on that task queue's work pool.
  const callTool: AgentActivities["callTool"] = (input) => {
    if (steps) return steps.callTool({ ...input, host: "run", taskQueue });
    const queue = prepared().toolQueues?.[input.toolCall.function.name];
    let call = onQueue.get(queue);
    if (!call) {
      call = proxyActivities<AgentActivities>({ ...options, ...(queue ? { taskQueue: queue } : {}) }).callTool;
      onQueue.set(queue, call);
    }
    return call(input);
  };
  const { workflowId, runId, taskQueue } = workflowInfo();
  const toolInput = (toolCall: ToolCall) => ({
    agentId: state.agentId,
    workflowId,
    taskQueue,
    toolCall,
    deferralId: book.nextDeferralId(),
    restored: state.restored,
    ...(state.principal ? { principal: state.principal } : {}),
    ...(state.resumedBy ? { resumedBy: state.resumedBy } : {}),
    ...(deferralRefused ? { deferralRefused } : {}),
  });

  const modelCall = async () => {
    for (;;) {
      const delta = state.messages.slice(thread.sentLength);
      const check = definitionCheck.record?.status === "resumed" ? definitionCheck.record : undefined;
      const input = {
        agentId: state.agentId,
        workflowId,
        runId,
        epoch: thread.epoch,
        baseLength: thread.sentLength,
        delta,
        restored: state.restored,
        ...(state.principal ? { principal: state.principal } : {}),
        ...(check ? { definitionCheck: { deferralId: check.id, definitionHash: check.definitionHash ?? "" } } : {}),
      };
      try {
        const reply = steps ? await steps.callModel(stepModelInput(input, state.messages)) : await callModel(input);
        // From version 3 on the worker caches its own answer too: the next call need not send it back.
        thread.sentLength = state.messages.length + (steps ? 1 : 0);
        definitionCheck.record = undefined;
        book.flushStatus();
        return reply;
      } catch (err) {
        const failure = err instanceof ActivityFailure ? err.cause : err;
        if (check && failure instanceof ApplicationFailure && (failure.type === "RC5048" || failure.type === "AI1007")) {
          // The resumed step cannot continue: the deferral is denied and the resume refused with this code.
          book.denyClaimed(check, failure.type, failure);
          throw failure;
        }
        // After a resume the approval is spent: an overflow parks the run for compaction instead of failing it.
        const resumed = book.lastResumed();
        if (!resumed || !isContextOverflow(err)) throw err;
        await book.awaitCompaction(resumed);
      }
    }
  };

  const stopIfCancelled = () => {
    if (cancellation.reason !== undefined || cancellation.scope.consideredCancelled) throw new CancelledFailure("cancelled");
  };

  for (;;) {
    stopIfCancelled();
    const { maxTurns } = prepared();
    if (state.turnsUsed >= maxTurns) {
      throw new MaxTurnsError({ maxTurns, turnsUsed: state.turnsUsed, usage: state.usage }).toFailure();
    }
    const reply = await modelCall();
    state.turnsUsed += 1;
    state.usage = addUsage(state.usage, reply.usage);
    state.messages.push(reply.message);
    // A cancel that came while the model answered stops the run here, with the answer counted.
    if (steps) stopIfCancelled();

    const calls = reply.message.tool_calls ?? [];
    if (calls.length === 0) {
      return { status: "completed", text: reply.message.content ?? "", messages: state.messages, turnsUsed: state.turnsUsed, usage: state.usage };
    }
    stopIfCancelled();
    // Siblings all finish (their results persist) before a deferral parks the run.
    const settled = await Promise.allSettled(calls.map((call) => callTool(toolInput(call))));
    const outputs = settled.map((s) => (s.status === "fulfilled" ? s.value : undefined));
    const cancelled = cancellation.reason !== undefined || cancellation.scope.consideredCancelled;
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (cancelled || failed) {
      // Calls that did finish keep their results in the thread, even though the run stops.
      calls.forEach((call, i) => {
        const out = outputs[i];
        if (out && "content" in out) state.messages.push({ role: "tool", tool_call_id: call.id, content: out.content });
      });
      // A deferral that raced the cancellation is recorded denied (RC5054): its link is dead.
      const deferred = calls.findIndex((_, i) => outputs[i] && "deferred" in outputs[i]!);
      if (cancelled && deferred >= 0) {
        const request = (outputs[deferred] as { deferred: DeferralRequest }).deferred;
        book.refuse(parkRequest(state, prepared(), calls[deferred]!, request), "RC5054");
      }
      throw cancelled ? new CancelledFailure("cancelled") : failed!.reason;
    }
    let winner: { call: ToolCall; request: DeferralRequest } | undefined;
    calls.forEach((call, i) => {
      const out = outputs[i] as ToolCallOutput;
      if ("deferred" in out) {
        // The first deferral in the model's emission order wins; later ones are told to retry.
        if (!winner) winner = { call, request: out.deferred };
        else state.messages.push({ role: "tool", tool_call_id: call.id, content: SIBLING_DEFERRED });
      } else {
        state.messages.push({ role: "tool", tool_call_id: call.id, content: out.content });
      }
    });
    if (winner) await deferUntilAnswered(state, book, prepared, winner, (input) => callTool(input), toolInput);
  }
}

/** Parks the run for `winner`'s deferral and lands its answer (resume or onExpired) in the thread. */
async function deferUntilAnswered(
  state: RunState,
  book: DeferralBook,
  prepared: () => PreparedAgent,
  winner: { call: ToolCall; request: DeferralRequest },
  callTool: AgentActivities["callTool"],
  toolInput: (call: ToolCall) => Parameters<AgentActivities["callTool"]>[0],
): Promise<void> {
  let request = winner.request;
  for (;;) {
    const parked = await book.park(parkRequest(state, prepared(), winner.call, request));
    if (parked.kind === "resumed") {
      const { payload } = parked;
      state.messages.push({
        role: "tool",
        tool_call_id: winner.call.id,
        content: typeof payload === "string" ? payload : JSON.stringify(payload),
      });
      // Identity is restored from storage, not re-verified, unless the resume vouched for it live.
      state.restored = !parked.reverified;
      if (parked.reverified) state.principal = parked.reverified;
      if (parked.resumedBy) state.resumedBy = parked.resumedBy;
      return;
    }
    const { record } = parked;
    if (!prepared().hasOnExpired) {
      throw new DeferralExpiredError({ deferralId: record.id, expiresAt: record.expiresAt }).toFailure();
    }
    const out = await callTool({
      ...toolInput(winner.call),
      expired: { deferralId: record.id, expiresAt: record.expiresAt, meta: record.meta },
    });
    if ("deferred" in out) {
      request = out.deferred;
      continue;
    }
    state.messages.push({ role: "tool", tool_call_id: winner.call.id, content: out.content });
    return;
  }
}

function parkRequest(state: RunState, prepared: PreparedAgent, call: ToolCall, request: DeferralRequest): ParkRequest {
  return {
    toolCallId: call.id,
    toolName: call.function.name,
    agentId: state.agentId,
    ...(request.schema ? { schema: request.schema } : {}),
    meta: request.meta,
    ttlMs: request.ttlMs,
    definitionHash: prepared.definitionHash,
    ...(state.principal ? { principal: state.principal } : {}),
    ...(prepared.contextWindow ? { contextWindow: prepared.contextWindow, overheadTokens: prepared.overheadTokens } : {}),
  };
}

/** Preparation again at resume: the agent must still exist and hash as it did when it deferred. */
async function reprepare(agentId: string, record: DeferralRecord): Promise<PreparedAgent> {
  let prepared: PreparedAgent;
  try {
    prepared = await prepareAgent({ agentId });
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : err;
    if (cause instanceof ApplicationFailure && cause.type === "AI1002") {
      throw new StepStateError({ agentId, reason: `no agent "${agentId}" is registered on the worker any more` }).toFailure();
    }
    throw err;
  }
  if (prepared.definitionHash !== record.definitionHash) {
    throw new DefinitionChangedError({
      deferralId: record.id,
      agentId,
      deferredHash: record.definitionHash ?? "",
      currentHash: prepared.definitionHash,
    }).toFailure();
  }
  return prepared;
}

/** A run's model call as the agent-step layer takes it; the tail's fingerprint guards the worker's cached answer. */
function stepModelInput({ runId, ...input }: ModelCallInput, messages: ChatMessage[]): AgentModelCallInput {
  const tail = messages[input.baseLength - 1];
  return { ...input, host: "run", transcriptId: runId, ...(tail ? { baseTail: fingerprint(tail) } : {}) };
}

function isContextOverflow(err: unknown): boolean {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure && cause.type === "AI1009";
}

function deferralIdOf(record: DeferralRecord | undefined): { deferralId?: string } {
  return record ? { deferralId: record.id } : {};
}
