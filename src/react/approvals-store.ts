/**
 * The approvals inbox as a page sees it: the state behind `useApprovals` (an external store
 * for `useSyncExternalStore`), usable without React too.
 */
import type { Duration } from "@temporalio/common";
import { decidedCallIds, decisionList, responseDecisions, uniformDecisions, type RespondOptions } from "../core/approval.js";
import { delayMs } from "../core/duration.js";
import type { DecideOptions } from "../client/shared-options.js";
import type { ApprovalDetail, ApprovalSummary } from "../client/approval-inbox.js";
import type { ResumeResult } from "../client/resume.js";
import { asChatError, type ChatError } from "./chat-error.js";
import { AgentHttpClient, type AgentHttpClientOptions, type HttpListApprovalsOptions } from "./agent-http-client.js";

export interface ApprovalsStoreOptions extends AgentHttpClientOptions, Omit<HttpListApprovalsOptions, "cursor" | "signal"> {
  /**
   * Read the list again this often while someone follows it, e.g. `"5s"` (0, the default:
   * only on `refresh()` and after each decision). The inbox is read from Temporal
   * visibility, which shows a new request a moment after it is made.
   */
  refreshInterval?: Duration;
}

/**
 * A row of the inbox: as listed (0 billed actions), and, once `read`, with what the approver
 * sees of it (`GET /approvals/:id`): who the run acts for and, when `authorize` allows
 * `approval.context`, why the agent asks. Model and tool text: escape it where you show it.
 */
export type ApprovalRow = ApprovalSummary & Partial<Pick<ApprovalDetail, "actsFor" | "context">>;

/** What an `ApprovalsStore` holds: the inbox as the page shows it. */
export interface ApprovalsStoreState {
  /** Requests the caller may see (the front door asks `authorize` per row), newest first; those `read` carry `actsFor` and `context`. */
  approvals: ApprovalRow[];
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
  /** The front door's client the store reads and decides through. */
  readonly http: AgentHttpClient;
  #state: ApprovalsStoreState = { approvals: [], isLoading: true, error: undefined, cursor: undefined };
  #listeners = new Set<() => void>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #following = false;
  /** Requests decided here: visibility may list them as waiting for a moment longer. */
  #decided = new Set<string>();
  #reads = 0;
  /** What `read` returned, by request: kept on the rows across later lists, which do not carry it. */
  readonly #seen = new Map<string, Pick<ApprovalRow, "actsFor" | "context">>();
  readonly #refreshMs: number;

  constructor(private readonly options: ApprovalsStoreOptions = {}) {
    this.http = new AgentHttpClient(options);
    this.#refreshMs = options.refreshInterval === undefined ? 0 : delayMs(options.refreshInterval, "ApprovalsStore refreshInterval", "5s");
  }

  getSnapshot = (): ApprovalsStoreState => this.#state;

  /** Reads the list on the first subscriber (and every `refreshInterval` while any stays). */
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
      const page = await this.http.approvals.list(this.#query());
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
      const page = await this.http.approvals.list({ ...this.#query(), cursor });
      if (read !== this.#reads) return;
      const known = new Set(this.#state.approvals.map((a) => a.approvalId));
      this.#set({ approvals: [...this.#state.approvals, ...this.#shown(page.approvals).filter((a) => !known.has(a.approvalId))], cursor: page.cursor, error: undefined });
    } catch (err) {
      if (read === this.#reads) this.#set({ error: asChatError(err) });
    }
  };

  /**
   * Reads one request as `GET /approvals/:id` does (one query, authorized as `deferral.get`):
   * its row then carries `actsFor` and, when `authorize` allows `approval.context`, `context`
   * (kept across refreshes). Resolves with the whole request; a refusal rejects and sets
   * `error`, the rows unchanged.
   */
  read = async (approvalId: string): Promise<ApprovalDetail> => {
    try {
      const detail = await this.http.approvals.get({ approvalId });
      // Only what the read shows: a row the hook no longer lets this reader see the context of loses it.
      this.#seen.set(approvalId, { ...(detail.actsFor ? { actsFor: detail.actsFor } : {}), ...(detail.context ? { context: detail.context } : {}) });
      this.#set({ approvals: this.#withSeen(this.#state.approvals), error: undefined });
      return detail;
    } catch (err) {
      this.#set({ error: asChatError(err) });
      throw err;
    }
  };

  /** Decides a request, one decision per call it lists (by call id, or a list); authorized as `resume` on its run or thread. */
  decide = async (options: DecideOptions): Promise<ResumeResult> => {
    const { approvalId } = options;
    const shown = options.shown ?? this.#state.approvals.find((a) => a.approvalId === approvalId)?.callFingerprint;
    try {
      const result = await this.http.approvals.decide({ ...options, ...(shown !== undefined ? { shown } : {}) });
      // A decision on some of its calls: the row stays, its other calls still waiting.
      const decidedNow = new Set(decidedCallIds({ decisions: decisionList(options.decisions) }));
      const row = this.#state.approvals.find((a) => a.approvalId === approvalId);
      const decided = [...new Set([...(row?.decided ?? []), ...decidedNow])];
      if (row && result.status === "resumed" && row.calls.some((c) => !decided.includes(c.toolCallId))) {
        this.#set({ approvals: this.#state.approvals.map((a) => (a === row ? { ...a, decided } : a)), error: undefined });
        return result;
      }
      this.#decided.add(approvalId);
      this.#reads++; // a read already under way may still list it
      this.#set({ approvals: this.#state.approvals.filter((a) => a.approvalId !== approvalId), error: undefined });
      return result;
    } catch (err) {
      this.#set({ error: asChatError(err) });
      throw err;
    }
  };

  /** Approves every call of a request still waiting, or those `toolCallIds` names (the others wait); `note` is kept on the record. */
  approve = (options: { approvalId: string; toolCallIds?: string[]; note?: string }): Promise<ResumeResult> =>
    this.decide({
      approvalId: options.approvalId,
      decisions: uniformDecisions(options.toolCallIds ?? this.#callsOf(options.approvalId), true, options),
    });

  /** Rejects every call of a request still waiting, or those `toolCallIds` names (the others wait): none runs, and the model reads `reason`. */
  reject = (options: { approvalId: string; toolCallIds?: string[]; reason?: string }): Promise<ResumeResult> =>
    this.decide({
      approvalId: options.approvalId,
      decisions: uniformDecisions(options.toolCallIds ?? this.#callsOf(options.approvalId), false, options),
    });
  /**
   * Answers in the tools' place: each call `results` names gets that result (checked against
   * its tool's `resultSchema`, RC5049) and its tool never runs; the request's other calls are
   * rejected with `reason`.
   */
  respond = (options: RespondOptions): Promise<ResumeResult> => this.decide({ approvalId: options.approvalId, decisions: responseDecisions(this.#callsOf(options.approvalId), options) });

  async #poll(): Promise<void> {
    await this.refresh();
    const every = this.#refreshMs;
    if (this.#following && every > 0) this.#timer = setTimeout(() => void this.#poll(), every);
  }

  /** A request's calls still waiting, as its row lists them; none for a row not shown (the front door then says why). */
  #callsOf(approvalId: string): string[] {
    const row = this.#state.approvals.find((a) => a.approvalId === approvalId);
    return row?.calls.map((c) => c.toolCallId).filter((id) => !row.decided?.includes(id)) ?? [];
  }

  #query(): HttpListApprovalsOptions {
    const { agentId, status, requires, limit } = this.options;
    return { ...(agentId !== undefined ? { agentId } : {}), ...(status !== undefined ? { status } : {}), ...(requires !== undefined ? { requires } : {}), ...(limit !== undefined ? { limit } : {}) };
  }

  /** Rows in the asked statuses (the list reads each record live, so a row can already be past waiting), minus those decided here. */
  #shown(rows: ApprovalSummary[]): ApprovalSummary[] {
    const asked = this.options.status === undefined ? ["deferred"] : Array.isArray(this.options.status) ? this.options.status : [this.options.status];
    return this.#withSeen(rows.filter((row) => asked.includes(row.status) && !(row.status === "deferred" && this.#decided.has(row.approvalId))));
  }

  /** Rows with what `read` saw of them. */
  #withSeen(rows: ApprovalRow[]): ApprovalRow[] {
    return rows.map((row) => {
      const seen = this.#seen.get(row.approvalId);
      if (!seen) return row;
      const { actsFor: _actsFor, context: _context, ...listed } = row;
      return { ...listed, ...seen };
    });
  }

  #set(patch: Partial<ApprovalsStoreState>): void {
    this.#state = { ...this.#state, ...patch };
    for (const listener of this.#listeners) listener();
  }
}
