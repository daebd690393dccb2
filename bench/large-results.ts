/**
 * `npm run bench -- large-results`: a run whose transcript outgrows one Temporal payload (20
 * tool-using turns, each result 128 KB: over 2 MB). The bare workflow cannot run it: it sends
 * the whole transcript in every model call's input, which outgrows a payload. Fields: `runMs`
 * (the run to its answer), `closedPageMs` (the first page
 * of the closed run's transcript: a worker replays it to answer), `pages` (the whole
 * transcript read page by page), `eventsPerTurn`, `activitiesScheduled` and
 * `turnsWithinDefaultEventLimit` (Temporal's 51,200 events per execution, at this rate).
 * `test/sizes.test.ts` holds the behaviour (it completes, pages stay under a payload); the
 * numbers live here.
 */
import { AgentClient } from "../src/index.js";
import { envInt, historyStats, progress, prompt, round, startBench, toolLoop } from "./lib.js";

const TURNS = envInt("LARGE_RESULTS_TURNS", 20);
const RESULT_BYTES = 131_072;

export async function main(): Promise<Record<string, unknown>> {
  // One more turn than tool calls: the last one answers.
  const bench = await startBench({ maxTurns: TURNS + 1, toolResultBytes: RESULT_BYTES });
  try {
    const { model, client, sdkQueue: taskQueue } = bench;
    const agents = new AgentClient({ client, taskQueue, queryTimeout: "60s" });

    const conversation = prompt("large results");
    model.respond(conversation, toolLoop(TURNS + 1));
    const startedAt = performance.now();
    const runId = await bench.runSdk(conversation);
    const runMs = performance.now() - startedAt;
    model.assertNoFailures();
    progress(`the run: ${Math.round(runMs)} ms`);

    const queried = performance.now();
    await agents.listMessages({ runId, limit: 1 });
    const closedPageMs = performance.now() - queried;
    let pages = 0;
    let cursor: string | undefined;
    do {
      const page = await agents.listMessages({ runId, limit: 1000, ...(cursor ? { cursor } : {}) });
      pages++;
      cursor = page.cursor;
    } while (cursor);

    const stats = await historyStats(client, runId);
    const perTurn = stats.events / (TURNS + 1);
    return {
      bench: "large-results",
      turns: TURNS + 1,
      resultBytes: RESULT_BYTES,
      runMs: Math.round(runMs),
      closedPageMs: Math.round(closedPageMs),
      pages,
      events: stats.events,
      eventsPerTurn: round(perTurn),
      activitiesScheduled: stats.byType.find((t) => t.type === "ACTIVITY_TASK_SCHEDULED")?.count ?? 0,
      turnsWithinDefaultEventLimit: Math.floor(51_200 / perTurn),
    };
  } finally {
    await bench.close();
  }
}
