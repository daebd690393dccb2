import type { DeferralRecord } from "../../src/core/deferral-record.js";
import type { DeferralVisibility } from "./visibility.js";

/**
 * Denying a deferral: its tokens read RC5050 from then on. A denial may carry the failure
 * the resume (or the parked run) that was waiting on the record is refused with.
 */
export class DeferralDenials {
  readonly #failures = new Map<string, unknown>();

  constructor(private readonly visibility: DeferralVisibility) {}

  /** Denies a waiting deferral (the run is cancelled, or its step can no longer continue). */
  deny(record: DeferralRecord, reason: string, failure: unknown): void {
    if (record.status !== "deferred") return;
    this.#mark(record, reason, failure);
    // Listeners and the parked-deferrals metric hear of it; a claimed one (below) was counted as resumed already.
    this.visibility.emit("denied", record);
  }

  /**
   * Denies a deferral whose resume was claimed but whose step then could not continue
   * (the definition changed): the resume waiting on it is refused with `failure`.
   */
  denyClaimed(record: DeferralRecord, reason: string, failure: unknown): void {
    if (record.status !== "resumed") return;
    this.#mark(record, reason, failure);
  }

  /** What a resume or run waiting on a denied record is refused with. */
  failureOf(record: DeferralRecord): unknown {
    return this.#failures.get(record.id);
  }

  #mark(record: DeferralRecord, reason: string, failure: unknown): void {
    record.status = "denied";
    record.deniedReason = reason;
    if (failure !== undefined) this.#failures.set(record.id, failure);
    this.visibility.status("denied");
  }
}
