import type { DeferralEvent, DeferralRecord, DeferralStatus } from "../../src/core/deferral-record.js";
import { INBOX_MEMO_KEY, inboxMemoOf } from "../../src/core/inbox-row.js";
import { DeferralExpiresAtKey, DeferralIdKey, DeferralStatusKey } from "../../src/core/search-attributes.js";
import type { DeferralRuntime, SearchAttributeWrite } from "./runtime.js";

/**
 * What a run's deferrals show outside its state: the search attributes that list them
 * (status, id, expiry) and the events worker-side listeners receive.
 */
export class DeferralVisibility {
  // A claim's "resumed" status, when it is written with the run's next step.
  #pendingStatus: DeferralStatus | undefined;

  constructor(private readonly runtime: Pick<DeferralRuntime, "upsertSearchAttributes" | "upsertMemo" | "emit" | "now">) {}

  /** A record starts waiting (or is refused at once): listed with its id, and its expiry while it can still resume. */
  listed(record: Pick<DeferralRecord, "id" | "status" | "expiresAt">): void {
    this.#write([
      { key: DeferralStatusKey, value: record.status },
      { key: DeferralIdKey, value: record.id },
      ...(record.status === "deferred" ? [{ key: DeferralExpiresAtKey, value: new Date(record.expiresAt) }] : []),
    ]);
  }

  /**
   * The inbox's row of a waiting request (its calls, meta, principal), kept in the run's memo
   * in the same workflow task as the search attributes that list it: the inbox lists and
   * filters from visibility alone, with no query per row. `record` as a record read shows it.
   */
  row(record: DeferralRecord): void {
    this.runtime.upsertMemo?.({ [INBOX_MEMO_KEY]: inboxMemoOf(record) });
  }

  status(status: DeferralStatus): void {
    this.#write([{ key: DeferralStatusKey, value: status }]);
  }

  /**
   * Leaves `status` to be written with the run's next step (`flush()`) rather than now:
   * a claim's own workflow task is on the path from resume() to the next model call.
   */
  statusLater(status: DeferralStatus): void {
    this.#pendingStatus = status;
  }

  /** Writes a status left for later (call once the run has taken its next step). */
  flush(): void {
    if (this.#pendingStatus === undefined) return;
    this.runtime.upsertSearchAttributes([{ key: DeferralStatusKey, value: this.#pendingStatus }]);
    this.#pendingStatus = undefined;
  }

  emit(type: DeferralEvent["type"], record: DeferralRecord): void {
    this.runtime.emit({
      type,
      deferralId: record.id,
      runId: record.runId,
      ...(record.agentId ? { agentId: record.agentId } : {}),
      toolCallId: record.toolCallId,
      at: new Date(this.runtime.now()).toISOString(),
      expiresAt: record.expiresAt,
      ...(type === "resumed" && record.resumedBy ? { resumedBy: record.resumedBy } : {}),
      ...(record.approval ? { approval: { calls: record.approval.calls.map(({ toolCallId, toolName }) => ({ toolCallId, toolName })) } } : {}),
    });
  }

  // Any status written now supersedes one a claim left for later.
  #write(attributes: SearchAttributeWrite): void {
    this.#pendingStatus = undefined;
    this.runtime.upsertSearchAttributes(attributes);
  }
}
