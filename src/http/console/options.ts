import type { Duration } from "@temporalio/common";

/** The console at `GET /console` (`createAgentHttpHandler({ console })`). */
export interface ConsolePageOptions {
  /** The list's heading. Default "Console". */
  title?: string;
  /**
   * How often an open page of a running run or thread asks whether its history grew: one
   * read of the newest history event per ask (free: no query, no billed action); the page
   * is read again in full only when it did, and not while the tab is hidden. Default `"3s"`;
   * `0` turns live updates off (the pages then have no script).
   */
  refreshInterval?: Duration;
  /** Rows per page of the list, 1 to 200. Default 50. */
  pageSize?: number;
}
