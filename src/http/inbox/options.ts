import type { Duration } from "@temporalio/common";

/** The inbox page at `GET /inbox` (a request at `GET /inbox/:id`, decided by its form's `POST /inbox/:id`). */
export interface InboxPageOptions {
  /**
   * How often an open list asks whether anything changed: one visibility listing per ask
   * (no query to a worker); the list is read again in full only when it did, and not while
   * the tab is hidden. Default `"5s"`; `0` turns live updates off (and the page then has no
   * script).
   */
  refreshInterval?: Duration;
  /** The list's heading. Default "Approvals". */
  title?: string;
}
