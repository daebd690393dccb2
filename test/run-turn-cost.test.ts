/**
 * What a run's turn costs the worker beyond its activities: every promise workflow code makes
 * runs Temporal's promise hook, which captures and formats a stack trace for it (the largest
 * share of a busy worker's workflow-thread CPU that grows with our code, bench throughput's
 * profile). Counted by replaying real histories of a short and a long run: the difference
 * is what each further model call and tool call costs, whatever the run's start costs.
 */
import { promiseHooks } from "node:v8";
import { Worker } from "@temporalio/worker";
import { afterAll, beforeAll, expect, it } from "vitest";
import { defineAgent } from "../src/index.js";
import { completed, startHarness, uid, type Harness } from "./harness.js";
import { add } from "./fixtures/agents.js";

const agent = defineAgent({ id: "turn-cost", model: "gpt-4.1-mini", system: "You add.", tools: [add], maxTurns: 30 });
/** A turn (a model call, then one tool call) made 18 before the steps were chained rather than awaited; the bare workflow's about 10. */
const MAX_PROMISES_PER_TURN = 12;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

/** Promises made in workflow sandboxes (their constructor is the sandbox's, not this realm's) while `work` runs. */
async function sandboxPromises(work: () => Promise<void>): Promise<number> {
  let count = 0;
  const stop = promiseHooks.onInit((promise) => {
    if ((promise as Promise<unknown>).constructor !== Promise) count += 1;
  });
  try {
    await work();
  } finally {
    stop();
  }
  return count;
}

it("each further turn of a run makes a bounded number of workflow promises, as the replay of its history counts them", async () => {
  const { agents } = await h.worker([agent]);
  const history = async (turns: number) => {
    const prompt = uid("turn-cost");
    h.model.script(prompt, [...Array.from({ length: turns - 1 }, (_, i) => ({ toolCalls: [{ name: "add", arguments: { a: i, b: 1 } }] })), { text: "done" }]);
    const runId = uid("turn-cost-run");
    await completed(agents.run(agent, { prompt, runId }));
    return { runId, history: await agents.client.workflow.getHandle(runId).fetchHistory() };
  };
  const short = await history(4);
  const long = await history(16);
  const replay = (run: { runId: string; history: unknown }) =>
    sandboxPromises(async () => {
      await Worker.runReplayHistory({ workflowBundle: h.bundle, replayName: uid("turn-cost-replay") }, run.history as never, run.runId);
    });
  // Once first: the replay worker's own start-up is not a turn's.
  await replay(short);
  const perTurn = ((await replay(long)) - (await replay(short))) / (16 - 4);
  expect(perTurn).toBeGreaterThan(0);
  expect(perTurn).toBeLessThanOrEqual(MAX_PROMISES_PER_TURN);
});

it("bundles the agent workflows from source as the package ships them (ES2022): no helper call for each class field or object spread", () => {
  // Temporal's loader compiles .ts for ES2017; the built package is ES2022 (tsconfig), and a
  // step's wire objects are spreads: helpers would make every step cost more from source.
  const ours = h.bundle.code.split("\n").filter((line) => /_define_property\(|_object_spread(_props)?\(/.test(line));
  expect(ours).toEqual([]);
});

it("evaluates the token hashing (src/core/proof.ts and its SHA-2 module) once per worker thread, not again for each new workflow", () => {
  // Temporal evaluates the bundle's modules anew for every workflow it starts, except those
  // its entry preloads: those are evaluated once, before any workflow, and shared. The SHA-2
  // module builds six hashers when it loads, a third of a new run's module evaluation.
  const preload = /exports\.preloadModules = function preloadModules\(\) \{([^}]*)\}/.exec(h.bundle.code)?.[1] ?? "";
  expect(preload).toMatch(/__webpack_require__\([^)]*"\.\/src\/core\/proof\.ts"\)/);
});
