import { useMemo, useRef, useSyncExternalStore } from "react";
import type { ApprovalDetail } from "../client/approval-inbox.js";
import type { ResumeResult } from "../client/resume.js";
import type { DecideOptions } from "../client/shared-options.js";
import type { RespondOptions } from "../core/approval.js";
import { ApprovalsStore, type ApprovalsStoreOptions, type ApprovalsStoreState } from "./approvals-store.js";

/** `useApprovals` options: how to reach the front door, the inbox's filters, and how often to read it again. */
export type UseApprovalsOptions = ApprovalsStoreOptions;

/** What `useApprovals` returns: the inbox as the page shows it, and its actions. */
export interface ApprovalsResult extends ApprovalsStoreState {
  /** Reads one request (`GET /approvals/:id`, one query): its row then carries `actsFor` and, where `authorize` allows, `context`. */
  read(approvalId: string): Promise<ApprovalDetail>;
  /** Reads the list again now. */
  refresh(): Promise<void>;
  /** Appends the next page (when `cursor` is set). */
  loadMore(): Promise<void>;
  /** Approves every call of a request; the row leaves the list. A refusal rejects and sets `error`. */
  approve(options: { approvalId: string; note?: string }): Promise<ResumeResult>;
  /** Rejects every call of a request: none runs, and the model reads `reason`. */
  reject(options: { approvalId: string; reason?: string }): Promise<ResumeResult>;
  /** Answers in the tools' place: each call `results` names gets that result and its tool never runs; the request's other calls are rejected with `reason`. */
  respond(options: RespondOptions): Promise<ResumeResult>;
  /** Decides a request call by call (approve one with an edited `input`, respond for another, reject a third). `shown` defaults to the row's `callFingerprint`. */
  decide(options: DecideOptions): Promise<ResumeResult>;
}

/**
 * The approvals inbox: requests of gated tools (and `ctx.defer()` deferrals, `kind:
 * "deferral"`) waiting across runs and threads, as the front door's `GET /approvals` lists
 * them for the caller, with actions that decide them through `POST /approvals/:id`.
 */
export function useApprovals(options: UseApprovalsOptions = {}): ApprovalsResult {
  const { baseUrl, agentId, requires, limit, refreshInterval } = options;
  const statuses = options.status === undefined ? undefined : ([] as string[]).concat(options.status).join(",");
  // fetch and headers are read per request through the latest options, so new objects each render restart nothing.
  const latest = useRef(options);
  latest.current = options;
  const store = useMemo(
    () =>
      new ApprovalsStore({
        ...(baseUrl !== undefined ? { baseUrl } : {}),
        ...(agentId !== undefined ? { agentId } : {}),
        ...(latest.current.status !== undefined ? { status: latest.current.status } : {}),
        ...(requires !== undefined ? { requires } : {}),
        ...(limit !== undefined ? { limit } : {}),
        ...(refreshInterval !== undefined ? { refreshInterval } : {}),
        fetch: (input, init) => (latest.current.fetch ?? globalThis.fetch)(input, init),
        headers: () => {
          const h = latest.current.headers;
          return (typeof h === "function" ? h() : h) ?? {};
        },
      }),
    [baseUrl, agentId, statuses, requires, limit, refreshInterval, latest],
  );
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
  return { ...state, read: store.read, refresh: store.refresh, loadMore: store.loadMore, approve: store.approve, reject: store.reject, respond: store.respond, decide: store.decide };
}
