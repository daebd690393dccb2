import { allHandlersFinished, condition, makeContinueAsNewFunc, workflowInfo } from "@temporalio/workflow";
import { TranscriptFullError } from "../../src/core/errors/limits.js";
import { jsonBytes, MAX_PAYLOAD_BYTES } from "../../src/core/payload-size.js";
import type { AgentResult, AgentRunInput, RunCarry } from "../../src/core/run-state.js";
import type { TranscriptMeter } from "../../src/core/transcript-budget.js";
import type { RunContext } from "./context.js";

/** A run that cannot continue as new ends (AI1018) before Temporal's 51,200 events or 50 MB would terminate it. */
const HISTORY_EVENTS_BACKSTOP = 45_000;
const HISTORY_BYTES_BACKSTOP = 44_040_192;

/**
 * Between turns, with nothing waiting and no update in flight, a run whose
 * history Temporal says is long (or past `maxHistoryEvents`) continues as new, carrying
 * what it holds, so a long run does not meet Temporal's history limits. One whose carry
 * would not fit a payload (a transcript over 1.5 MB) goes on as it is.
 */
export function runContinuation(
  input: AgentRunInput,
  { state, book, transcript, definitionCheck, tracing, stream }: Pick<RunContext, "state" | "book" | "transcript" | "definitionCheck" | "tracing" | "stream">,
  deadline: number | undefined,
  meter: TranscriptMeter,
): () => Promise<void> | undefined {
  // Undefined when nothing is due (most turns): the caller then has nothing to await.
  return () => {
    const info = workflowInfo();
    const due = info.continueAsNewSuggested || (input.maxHistoryEvents !== undefined && info.historyLength >= input.maxHistoryEvents);
    if (!due || book.current() || definitionCheck.record) return undefined;
    return continueNow(info);
  };
  async function continueNow(info: ReturnType<typeof workflowInfo>): Promise<void> {
    // Resumes waiting for the run's next settled state are answered "running" (their clients
    // follow the run); anything else still in flight (an old client's settled update) is
    // given a moment, then the run goes on in this execution and tries again next turn.
    const undo = book.resumes.releaseForContinue();
    if (!(await condition(allHandlersFinished, "10s"))) {
      undo();
      return;
    }
    const trace = tracing.handOn();
    const carried: RunCarry = {
      messages: state.messages,
      turnsUsed: state.turnsUsed,
      usage: state.usage,
      restored: state.restored,
      ...(state.principal ? { principal: state.principal } : {}),
      ...(state.resumedBy ? { resumedBy: state.resumedBy } : {}),
      records: book.records.list,
      ...(book.outcome.subAgentOutcomes.size > 0 ? { subAgentOutcomes: Object.fromEntries(book.outcome.subAgentOutcomes) } : {}),
      epoch: transcript.epoch,
      sentLength: transcript.sentLength,
      ...(deadline !== undefined ? { deadline } : {}),
      continuedRuns: (input.carried?.continuedRuns ?? 0) + 1,
      ...(trace ? { trace } : {}),
      stream: stream.carry(),
    };
    const next: AgentRunInput = { ...input, carried };
    if (jsonBytes(next, MAX_PAYLOAD_BYTES) > MAX_PAYLOAD_BYTES) {
      undo();
      // Too large to carry, it goes on here; near Temporal's limits (which would terminate
      // it) it ends with a typed code instead.
      if (info.historyLength >= HISTORY_EVENTS_BACKSTOP || info.historySize >= HISTORY_BYTES_BACKSTOP) {
        throw new TranscriptFullError({
          host: "run",
          id: info.workflowId,
          what: `its next step (its history, ${info.historyLength} events and ${info.historySize} bytes, is near Temporal's limits, and the transcript is too large to carry into a new execution)`,
          bytes: meter.total(state.messages),
          leftBytes: 0,
          limitBytes: MAX_PAYLOAD_BYTES,
        }).toFailure();
      }
      return;
    }
    tracing.end("continued", { turnsUsed: state.turnsUsed });
    // The workflow type is this one's (agentRun): continue-as-new defaults to it.
    await makeContinueAsNewFunc<(input: AgentRunInput) => Promise<AgentResult>>({
      ...(info.memo ? { memo: info.memo } : {}),
      typedSearchAttributes: info.typedSearchAttributes,
    })(next);
  }
}
