import { CancellationScope, isCancellation } from "@temporalio/workflow";
import { MaxTurnsError } from "../../src/core/errors/limits.js";
import { needsAnswer, openToolCalls } from "../../src/core/thread-transcript.js";
import type { AgentSteps } from "../shared/agent-steps.js";
import { failureOf } from "./failure.js";
import { callModel } from "./model-call.js";
import { compactIfDue } from "./compaction.js";
import type { ThreadState } from "./state.js";
import { runTools } from "./tools.js";
import type { TurnTracing } from "./trace.js";

/** How a turn stopped: settled (completed, failed or stopped), or due to continue as new. */
export type TurnEnd = "settled" | "rollover";

/**
 * Runs the current turn until it completes, fails, is stopped, or should roll over.
 * Everything it needs is in the transcript, so it works the same for a fresh turn, a
 * resumed one, and one that continued as new halfway.
 */
export async function runTurn(thread: ThreadState, steps: AgentSteps, turns: TurnTracing): Promise<TurnEnd> {
  const scope = new CancellationScope();
  thread.turnStarted(scope);
  turns.begin(thread.agentId);
  try {
    const end = await scope.run(() => advance(thread, steps));
    turns.end(end === "rollover" ? "continued" : "completed");
    return end;
  } catch (err) {
    // Stop and delete cancel the scope; they already set the state they want. A stopped
    // call reports its cancellation only once it has really ended, so a resume may already
    // have set the thread going again: the cancelled scope, not the status, says it was a
    // stop. A stop wins over however its call ended: a call whose worker died never hears
    // its cancel and ends in its heartbeat timeout (Temporal does not retry a
    // cancel-requested call), which is no failure of the stopped turn.
    const stopped = isCancellation(err) ? thread.status === "stopped" || scope.consideredCancelled : scope.consideredCancelled;
    if (thread.deleteRequested || stopped) {
      turns.end("cancelled");
      return "settled";
    }
    const failure = failureOf(err);
    turns.end("failed", failure.code);
    thread.fail(failure);
    return "settled";
  } finally {
    thread.turnEnded();
  }
}

async function advance(thread: ThreadState, steps: AgentSteps): Promise<TurnEnd> {
  for (;;) {
    if (thread.rollover.due()) return "rollover";
    if (!thread.prepared) {
      // Described earlier in this run: the turn's first model call checks the description
      // (its answer carries the agent's new one if it changed), which saves the marker of a
      // local activity on every turn. A new run (continue-as-new) describes it afresh.
      if (thread.lastPrepared) thread.prepare({ unchanged: true }, { unverified: true });
      else thread.prepare(await thread.local(() => steps.describe({ agentId: thread.agentId })));
    }
    const prepared = thread.prepared!;
    const open = openToolCalls(thread.messages);
    if (open.length > 0) {
      thread.setStatus("awaiting_tool_results");
      if ((await runTools(thread, prepared, open, steps)) === "rollover") return "rollover";
      continue;
    }
    if (needsAnswer(thread.messages)) {
      if (thread.turnSteps >= prepared.maxTurns) {
        throw new MaxTurnsError({ maxTurns: prepared.maxTurns, turnsUsed: thread.turnSteps, usage: thread.usage }).toFailure();
      }
      thread.setStatus("streaming");
      const compaction = compactIfDue(thread, prepared);
      if (compaction) await compaction;
      await callModel(thread, prepared, steps);
      continue;
    }
    thread.setStatus("completed");
    return "settled";
  }
}
