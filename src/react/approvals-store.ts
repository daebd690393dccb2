/**
 * The approvals inbox as a page sees it: the state behind `useApprovals` (an external store
 * for `useSyncExternalStore`), usable without React too.
 */
import type { Decision, Decisions } from "../core/approval.js";
import type { ApprovalSummary } from "../client/approval-inbox.js";
import type { ResumeResult } from "../client/resume.js";
import { asChatError, type ChatError } from "./chat-error.js";
import { threadsHttpClient, type ListApprovalsQuery, type ThreadsHttpClient, type ThreadsHttpOptions } from "./threads-http.js";

export interface ApprovalsStoreOptions extends ThreadsHttpOptions, Omit<ListApprovalsQuery, "cursor"> {
  /**
   * Read the list again this often, in ms, while someone follows it (0, the default: only on
   * `refresh()` and after each decision). The inbox is read from Temporal visibility, which
   * shows a new request a moment after it is made.
   */
  refreshIntervalMs?: number;
}

export interface ApprovalsState {
  /** Requests the caller may see (the front door asks `authorize` per row), newest first. */
  approvals: ApprovalSummary[];
  /** True until the first list arrived. */
  isLoading: boolean;
  /** The last failure (a refused list or decision); cleared by the next success. */
  error: ChatError | undefined;
  /** Set when there are more rows: `loadMore()` reads them. */
  cursor: string | undefined;
}

/**
 * Lists the inbox (`GET /approvals`) and decides its requests (`POST /approvals/:id`, with
 * the row's `callFingerprint` as `shown`, so calls changed since the row was read are refused
 * with RC5058 rather than decided blind). A decided row leaves the list at once; so does one
 * the next read shows decided, expired or denied, unless those statuses were asked for.
 */
export class ApprovalsStore {
  readonly http: ThreadsHttpClient;
  #state: ApprovalsState = { approvals: [], isLoading: true, error: undefined, cursor: undefined };
  #listeners = new Set<() => void>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #following = false;
  /** Requests decided here: visibility may list them as waiting for a moment longer. */
  #decided = new Set<string>();
  #reads = 0;

  constructor(private readonly options: ApprovalsStoreOptions = {}) {
    this.http = threadsHttpClient(options);
  }

  getSnapshot = (): ApprovalsState => this.#state;

  /** Reads the list on the first subscriber (and every `refreshIntervalMs` while any stays). */
  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    if (this.#listeners.size === 1) {
      this.#following = true;
      void this.#poll();
    }
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) {
        this.#following = false;
        clearTimeout(this.#timer);
      }
    };
  };

  /** Reads the first page again (what `loadMore` added is replaced). */
  refresh = async (): Promise<void> => {
    const read = ++this.#reads;
    try {
      const page = await this.http.listApprovals(this.#query());
      // A later read (or a decision) may have answered meanwhile: the newest read wins.
      if (read !== this.#reads) return;
      this.#set({ approvals: this.#shown(page.approvals), cursor: page.cursor, isLoading: false, error: undefined });
    } catch (err) {
      if (read === this.#reads) this.#set({ error: asChatError(err), isLoading: false });
    }
  };

  /** Appends the next page, when `cursor` says there is one. */
  loadMore = async (): Promise<void> => {
    const cursor = this.#state.cursor;
    if (!cursor) return;
    const read = ++this.#reads;
    try {
      const page = await this.http.listApprovals({ ...this.#query(), cursor });
      if (read !== this.#reads) return;
      const known = new Set(this.#state.approvals.map((a) => a.approvalId));
      this.#set({ approvals: [...this.#state.approvals, ...this.#shown(page.approvals).filter((a) => !known.has(a.approvalId))], cursor: page.cursor, error: undefined });
    } catch (err) {
      if (read === this.#reads) this.#set({ error: asChatError(err) });
    }
  };

  /** Decides a request, one decision per call it lists (by call id, or a list); authorized as `resume` on its run or thread. */
  decide = async (approvalId: string, decisions: Decisions): Promise<ResumeResult> => {
    const shown = this.#state.approvals.find((a) => a.approvalId === approvalId)?.callFingerprint;
    try {
      const result = await this.http.decideApproval(approvalId, decisions, shown);
      this.#decided.add(approvalId);
      this.#reads++; // a read already under way may still list it
      this.#set({ approvals: this.#state.approvals.filter((a) => a.approvalId !== approvalId), error: undefined });
      return result;
    } catch (err) {
      this.#set({ error: asChatError(err) });
      throw err;
    }
  };

  /** Approves every call of a request. */
  approve = (approvalId: string, options: { note?: string } = {}): Promise<ResumeResult> =>
    this.decide(approvalId, this.#callsOf(approvalId).map((toolCallId): Decision => ({ toolCallId, approved: true, ...(options.note !== undefined ? { note: options.note } : {}) })));

  /** Rejects every call of a request: none runs, and the model reads `reason`. */
  reject = (approvalId: string, reason?: string): Promise<ResumeResult> =>
    this.decide(approvalId, this.#callsOf(approvalId).map((toolCallId): Decision => ({ toolCallId, approved: false, ...(reason !== undefined ? { reason } : {}) })));

  async #poll(): Promise<void> {
    await this.refresh();
    const every = this.options.refreshIntervalMs ?? 0;
    if (this.#following && every > 0) this.#timer = setTimeout(() => void this.#poll(), every);
  }

  /** A request's calls as its row lists them; none for a row not shown (the front door then says why). */
  #callsOf(approvalId: string): string[] {
    return this.#state.approvals.find((a) => a.approvalId === approvalId)?.calls.map((c) => c.toolCallId) ?? [];
  }

  #query(): ListApprovalsQuery {
    const { agentId, status, requires, limit } = this.options;
    return { ...(agentId !== undefined ? { agentId } : {}), ...(status !== undefined ? { status } : {}), ...(requires !== undefined ? { requires } : {}), ...(limit !== undefined ? { limit } : {}) };
  }

  /** Rows in the asked statuses (the list reads each record live, so a row can already be past waiting), minus those decided here. */
  #shown(rows: ApprovalSummary[]): ApprovalSummary[] {
    const asked = this.options.status === undefined ? ["deferred"] : Array.isArray(this.options.status) ? this.options.status : [this.options.status];
    return rows.filter((row) => asked.includes(row.status) && !(row.status === "deferred" && this.#decided.has(row.approvalId)));
  }

  #set(patch: Partial<ApprovalsState>): void {
    this.#state = { ...this.#state, ...patch };
    for (const listener of this.#listeners) listener();
  }
}
