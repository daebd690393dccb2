import { defineConfig } from "vitest/config";
import { integration } from "./vitest.config.js";

// The second CI lane (`npm run test:postgres`, after `npm test` in .ci/run): the tests whose
// behaviour rests on the server's persistence, visibility and defaults, against the real
// Temporal server on PostgreSQL (src/testing/temporal-postgres.ts) instead of the dev server.
// Set here, not in the npm script: global-setup's startTemporal() reads it in this process.
process.env.TEMPORAL_TARGET = "postgres";

// The integration project's settings (global setup, timeouts), not its file list (the main
// lane excludes test/postgres/**, which this lane runs) nor its two lanes: these files count
// the machine's PostgreSQL processes and time a dead worker's sticky queue, which a second
// file's server and load would confuse.
export default defineConfig({
  test: {
    ...integration,
    name: "postgres",
    fileParallelism: false,
    include: [
      // durability: a worker SIGKILLed, the server restarted with runs parked, 50 parked runs resumed
      "test/worker-crash.test.ts",
      "test/durability.test.ts",
      "test/many-parked.test.ts",
      // deferral listing through search attributes in SQL visibility
      "test/deferral-lifecycle.test.ts",
      // gated tools: runs and threads park before the handler, the one inbox lists both from SQL visibility
      "test/approvals-run.test.ts",
      "test/approvals-thread.test.ts",
      "test/approvals-per-call.test.ts",
      "test/http-approvals.test.ts",
      // the inbox's rows read from the runs' memos in SQL visibility, encrypted by a codec
      "test/approval-inbox-memo.test.ts",
      // standing permissions: kept on the granting request's record, carried across continue-as-new
      "test/approval-permissions.test.ts",
      // the audit trail by principal: runs and threads listed by close time from SQL visibility, then read and filtered
      "test/approval-history-principal.test.ts",
      // a thread's sub-agents: child workflows of the thread, their requests in the inbox from SQL visibility
      "test/thread-sub-agents.test.ts",
      // what the approver sees: the inbox list (SQL visibility's memo) and the request pages in Chromium, filtered by approval.context
      "test/approval-context-pages.test.ts",
      // the inbox over MCP: list_approvals reads SQL visibility's memo rows, decisions per call
      "test/mcp-decide.test.ts",
      // the console: runs and threads listed (status, agent, waiting, the memo's principal) from SQL visibility
      "test/console.test.ts",
      // the console's list searched by id prefix and start time (SQL visibility's STARTS_WITH, StartTime), filtered by the memo's principal
      "test/console-list.test.ts",
      // the console's run page: sub-agents' own histories, a 1,000-turn run read across continue-as-new from SQL persistence
      "test/console-detail.test.ts",
      // the demo walked in the console: its parked payout found in the list (SQL visibility) and its memo's request on the run's page
      "test/demo-console.test.ts",
      // schedules: the server's scheduler, schedules listed from SQL visibility by their agent
      "test/schedules.test.ts",
      // several readers of one thread's stream (buffered queries)
      "test/thread-streaming.test.ts",
      "test/http-readers.test.ts",
      // compaction: the originals a summary replaced are read back from closed runs' histories in SQL persistence
      "test/thread-compaction.test.ts",
      // the server itself: attributes registered, stop() leaves nothing behind
      "test/postgres/*.test.ts",
    ],
    exclude: ["**/node_modules/**"],
  },
});
