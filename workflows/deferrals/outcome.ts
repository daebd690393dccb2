import { ApplicationFailure } from "@temporalio/workflow";
import type { FailureInfo, RunOutcome } from "../../src/core/deferral-record.js";
import type { RunStatus } from "../../src/core/run-state.js";
import type { DeferralRecords } from "./records.js";
import type { DeferralRuntime } from "./runtime.js";
import type { DeferralVisibility } from "./visibility.js";

/**
 * The run's settled state (deferred, parked for compaction, completed, failed): what
 * `settled()` waits for, and what resumes and their duplicates are answered with.
 */
export class SettledOutcome {
  phase: RunStatus = "running";
  #last: RunOutcome | undefined;
  /**
   * The sub-agents' deferrals this run waited on that were resumed, each with the state the
   * run settled in next (null until it does): a resume of a sub-agent's deferral answers
   * with this run's next settled state, so its duplicates must too, and only this run knows it.
   */
  readonly subAgentOutcomes = new Map<string, RunOutcome | null>();

  constructor(
    private readonly runtime: Pick<DeferralRuntime, "condition">,
    private readonly records: DeferralRecords,
    private readonly visibility: DeferralVisibility,
  ) {}

  /** Records the run's settled state; answers the resume that led here. */
  settle(outcome: RunOutcome): void {
    this.visibility.flush();
    this.#last = outcome;
    // A thread's accepted decision is no settled state of a run: it goes on.
    this.phase = outcome.status === "accepted" ? "running" : outcome.status;
    for (const record of this.records.list) {
      if ((record.status === "resumed" || record.status === "needs-compaction") && !record.outcome) record.outcome = outcome;
      // A call decided alone whose result never came (the run failed or was cancelled meanwhile): its resume hears how the run settled.
      for (const entry of record.approval?.decided ?? []) if (!entry.outcome) entry.outcome = outcome;
    }
    for (const [id, first] of this.subAgentOutcomes) if (first === null) this.subAgentOutcomes.set(id, outcome);
  }

  /** The last settled state recorded (undefined before the first). */
  get last(): RunOutcome | undefined {
    return this.#last;
  }

  /** The run moves again (resumed, expired, compacted): `settled()` waits for its next state. */
  moving(): void {
    this.phase = "running";
  }

  /** The `settled` update: the run's state once it next settles (at once if it has). */
  async settled(): Promise<RunOutcome> {
    await this.runtime.condition(() => this.phase !== "running");
    return this.#last!;
  }
}

/** How a failed run is told in its outcome: the typed code and fields when there are some. */
export function failureInfo(err: unknown): FailureInfo {
  if (err instanceof ApplicationFailure) {
    return { ...(err.type ? { code: err.type } : {}), message: err.message, ...(err.details?.[0] !== undefined ? { fields: err.details[0] } : {}) };
  }
  return { message: err instanceof Error ? err.message : String(err) };
}
