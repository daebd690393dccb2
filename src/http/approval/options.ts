import type { Context } from "hono";
import type { ApprovalView } from "./view.js";

/** The approval page at `GET /approve?token=…` (and the form's `POST /approve`). */
export interface ApprovalPageOptions {
  /**
   * Replaces the built-in page: receives what the page would show (the state, the record's
   * agent, tool, arguments, meta, schema, time left, errors, the outcome) and returns HTML
   * or a whole `Response`. The handler still sets the strict headers on HTML it is given.
   * A form it renders must POST to `view.action` with the hidden fields in `view.hidden`.
   */
  render?: (view: ApprovalView, c: Context) => string | Response | Promise<string | Response>;
  /** Shown as the page's heading when the deferral's meta gives no title. Default "Approval requested". */
  defaultTitle?: string;
}
