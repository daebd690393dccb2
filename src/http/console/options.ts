/** The console at `GET /console` (`createAgentHttpHandler({ console })`). */
export interface ConsolePageOptions {
  /** The list's heading. Default "Console". */
  title?: string;
  /** Rows per page of the list, 1 to 200. Default 50. */
  pageSize?: number;
}
