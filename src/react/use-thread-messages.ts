import { useMemo, useRef, useSyncExternalStore } from "react";
import { isThreadRunning } from "../core/ui-messages.js";
import { ThreadStore, type ThreadStoreOptions, type ThreadStoreState } from "./thread-store.js";

/** `useThreadMessages` options: the thread and how to reach the front door. */
export type UseThreadMessagesOptions = ThreadStoreOptions;

/** The thread's messages and state, with the seed's status flags. */
export interface ThreadMessagesResult extends Omit<ThreadStoreState, "fold"> {
  /** `streaming` or `awaiting_tool_results`: a turn is in progress. */
  isRunning: boolean;
  /** The last turn answered. */
  isComplete: boolean;
  /** The last turn failed (`thread.lastError` says why). */
  isFailed: boolean;
  /** `stopThread` interrupted the turn. */
  isStopped: boolean;
  /** The store behind the hook (its actions and `http` client). */
  store: ThreadStore;
}

/**
 * Read-only view of a thread: its messages in the AI SDK's `UIMessage` shape (streamed text
 * folded into the message being written), the thread and its status. Follows the thread's
 * event stream while mounted; a reconnect or a reload continues from the last entry applied.
 */
export function useThreadMessages(options: UseThreadMessagesOptions): ThreadMessagesResult {
  const { threadId, baseUrl, excludeSystemMessages, staleAfter } = options;
  // The store lives as long as what identifies the stream; fetch and headers are read per
  // request through the latest options, so passing new objects each render restarts nothing.
  const latest = useRef(options);
  latest.current = options;
  const store = useMemo(
    () =>
      new ThreadStore({
        threadId,
        ...(baseUrl !== undefined ? { baseUrl } : {}),
        ...(excludeSystemMessages !== undefined ? { excludeSystemMessages } : {}),
        ...(staleAfter !== undefined ? { staleAfter } : {}),
        fetch: (input, init) => (latest.current.fetch ?? globalThis.fetch)(input, init),
        headers: () => {
          const h = latest.current.headers;
          return (typeof h === "function" ? h() : h) ?? {};
        },
      }),
    [threadId, baseUrl, excludeSystemMessages, staleAfter, latest],
  );
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
  const { fold: _fold, ...rest } = state;
  return {
    ...rest,
    isRunning: isThreadRunning(state.status),
    isComplete: state.status === "completed",
    isFailed: state.status === "failed",
    isStopped: state.status === "stopped",
    store,
  };
}
