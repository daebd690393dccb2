/**
 * "An inbox that reads for free" (issue 49): N requests waiting on people, across runs and
 * threads (one in ten a thread; each a gated call, its `requires` one of two roles), then the
 * inbox as an approver's page reads it: `approvals.list({ limit: 50 })` page after page to
 * the last row, each page timed (p50, p95) and its billed actions counted by the server's own
 * `action` counter (bench/actions.ts); a page filtered by `requires`; one `approvals.get`.
 * Beside it, today's page before rows were kept in the memo (`legacy`): the same listing,
 * then each row's record read from its run, one query per row, on the first LEGACY_PAGES pages.
 *
 * `npm run bench -- inbox 500` (default 10,000, or INBOX_REQUESTS); INBOX_CONCURRENCY parks
 * at once (default 50).
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { defineAgent, defineTool, type AgentClient } from "../src/index.js";
import { unguarded } from "../src/client/deferral-store.js";
import { startTemporal } from "../src/testing/index.js";
import { startAgentStack, TEST_SECRET } from "../test/agent-stack.js";
import { actionCounter, type Measured } from "./actions.js";
import { envInt, freePort, installRuntime, median, MODEL, percentile, positiveInt, progress, round, USAGE } from "./lib.js";

const REQUESTS = process.argv[3] !== undefined ? positiveInt("requests argument", process.argv[3]) : envInt("INBOX_REQUESTS", 10_000);
const CONCURRENCY = envInt("INBOX_CONCURRENCY", 50);
const PAGE = 50;
const LEGACY_PAGES = envInt("INBOX_LEGACY_PAGES", 5);

export async function main(): Promise<Record<string, unknown>> {
  installRuntime();
  const metricsPort = await freePort();
  const server = await startTemporal({ local: true, metricsPort, log: (line) => progress(`temporal: ${line}`) });
  const stack = await startAgentStack({ temporal: server, log: (line) => progress(`temporal: ${line}`) }).catch(async (err: unknown) => {
    await server.stop();
    throw err;
  });
  const { measure } = actionCounter(metricsPort, stack.namespace);
  try {
    const pay = defineTool({
      name: "pay",
      description: "Pays",
      input: z.object({ amount: z.number(), to: z.string() }),
      needsApproval: true,
      approval: { ttl: "72h", meta: ({ amount }) => ({ requires: [amount > 100 ? "payouts:large" : "payouts:approve"] }) },
      handler: ({ amount }) => `paid ${amount}`,
    });
    const agent = defineAgent({ id: "bench-inbox", model: MODEL, system: "You pay.", tools: [pay], maxTurns: 3 });
    const { agents } = await stack.worker([agent], { deferral: { secret: TEST_SECRET }, client: { deferral: { secret: TEST_SECRET }, threads: { agent } } });

    // Park N requests, CONCURRENCY at a time: nine runs in ten, one thread.
    const startedAt = performance.now();
    let next = 0;
    const park = async (): Promise<void> => {
      for (let i = next++; i < REQUESTS; i = next++) {
        const id = `inbox-${i}-${randomUUID().slice(0, 8)}`;
        const amount = i % 4 === 0 ? 500 : 20;
        stack.model.respond(id, (_request, turn) => (turn === 0 ? { toolCalls: [{ name: "pay", arguments: { amount, to: `payee-${i}` } }], usage: USAGE } : { text: "Done.", usage: USAGE }));
        if (i % 10 === 9) await agents.threads.createThread({ threadId: id, prompt: id, principal: { id: `clerk-${i % 7}` } });
        else {
          const ack = await agents.run(agent, { prompt: id, runId: id, principal: { id: `clerk-${i % 7}` } });
          if (ack.status !== "deferred") throw new Error(`expected run ${id} to park, it settled as ${ack.status}`);
        }
        if ((i + 1) % 1000 === 0) progress(`${i + 1} of ${REQUESTS} asked`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, park));
    // Visibility trails the parks (threads park after their start returns): wait until it lists them all (a count is free).
    for (;;) {
      const { count } = await stack.connection.workflowService.countWorkflowExecutions({ namespace: stack.namespace, query: `DeferralStatus = "deferred"` });
      if (Number(count) >= REQUESTS) break;
      await sleep(500);
    }
    const parkSeconds = round((performance.now() - startedAt) / 1000, 1);
    progress(`${REQUESTS} requests waiting after ${parkSeconds} s`);

    // The inbox, page after page to the last row.
    const pageMs: number[] = [];
    let rows = 0;
    let pages = 0;
    let lastRowPage = 0;
    const listing = await measure(async () => {
      let cursor: string | undefined;
      do {
        const t = performance.now();
        const page = await agents.approvals.list({ limit: PAGE, ...(cursor ? { cursor } : {}) });
        pageMs.push(performance.now() - t);
        rows += page.approvals.length;
        pages += 1;
        // Visibility may hand out a cursor to an empty last page: the last row is on the page before.
        if (page.approvals.length > 0) lastRowPage = pages;
        cursor = page.cursor;
      } while (cursor);
    });
    if (rows !== REQUESTS) throw new Error(`the inbox listed ${rows} rows of ${REQUESTS}`);
    progress(`listed ${rows} rows in ${pages} pages: ${listing.total} actions`);

    let filteredRows = 0;
    const filteredMs: number[] = [];
    const filtered = await measure(async () => {
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        filteredRows = (await agents.approvals.list({ limit: PAGE, requires: "payouts:large" })).approvals.length;
        filteredMs.push(performance.now() - t);
      }
    });

    const some = (await agents.approvals.list({ limit: 1 })).approvals[0]!;
    const get = await measure(() => agents.approvals.get({ approvalId: some.approvalId }));

    // Today's page, before rows were kept: each row's record read from its run (one query each).
    const legacyMs: number[] = [];
    const legacy = await measure(() => legacyPages(agents, LEGACY_PAGES, legacyMs));

    const perPage = (m: Measured, n: number) => round(m.total / n, 2);
    return {
      bench: "inbox",
      requests: REQUESTS,
      threads: Math.floor(REQUESTS / 10),
      parkSeconds,
      page: PAGE,
      pagesToLastRow: lastRowPage,
      pagesRead: pages,
      listMs: { p50: round(median(pageMs)), p95: round(percentile(pageMs, 95)) },
      actionsPerPage: perPage(listing, pages),
      listActions: listing.byOperation,
      requiresPage: { rows: filteredRows, p50: round(median(filteredMs)), p95: round(percentile(filteredMs, 95)), actionsPerPage: perPage(filtered, 5) },
      getActions: get.total,
      legacy: { pages: LEGACY_PAGES, listMs: { p50: round(median(legacyMs)), p95: round(percentile(legacyMs, 95)) }, actionsPerPage: perPage(legacy, LEGACY_PAGES), byOperation: legacy.byOperation },
    };
  } finally {
    await stack.close();
    await server.stop();
  }
}

/** The inbox's page as it was read before rows were kept in the memo: the listing, then every row's record by query. */
async function legacyPages(agents: AgentClient, pages: number, times: number[]): Promise<void> {
  let cursor: string | undefined;
  for (let i = 0; i < pages; i++) {
    const t = performance.now();
    const page = await agents.deferrals.list({ status: "deferred", taskQueue: agents.taskQueue, limit: PAGE, ...(cursor ? { cursor } : {}) });
    await Promise.all(page.deferrals.map((row) => unguarded(agents.deferrals).getRecord({ deferralId: row.deferralId })));
    times.push(performance.now() - t);
    cursor = page.cursor;
    if (!cursor) break;
  }
}
