/**
 * A worker in its own process, so a test can SIGKILL it mid-run. Configured by env:
 * TEMPORAL_ADDRESS, TASK_QUEUE, MODEL_URL, MARK_DIR, WORKER_NAME. Prints "ready" when polling.
 */
import { appendFileSync, existsSync, watch } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineAgent, defineTool } from "../../src/index.js";
import { env, serveAgents } from "./serve.js";

/** Resolves once the test has written `name` into MARK_DIR (see `finishStep`). */
function fileAppears(name: string): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(env("MARK_DIR"), () => {
      if (!existsSync(join(env("MARK_DIR"), name))) return;
      watcher.close();
      resolve();
    });
    if (!existsSync(join(env("MARK_DIR"), name))) return;
    watcher.close();
    resolve();
  });
}

/** A step that runs until the test lets it finish: it writes `finish-<n>` into MARK_DIR. */
const slowStep = defineTool({
  name: "slowStep",
  description: "A step that takes a while",
  input: z.object({ n: z.number() }),
  async handler({ n }, ctx) {
    appendFileSync(
      join(env("MARK_DIR"), "calls.jsonl"),
      JSON.stringify({ pid: process.pid, attempt: ctx.attempt, key: ctx.idempotencyKey, n }) + "\n",
    );
    await fileAppears(`finish-${n}`);
    return `step ${n} done by ${env("WORKER_NAME")} worker`;
  },
});

const slowAgent = defineAgent({
  id: "slow",
  model: "gpt-4.1-mini",
  system: "You run slow steps.",
  tools: [slowStep],
  timeouts: { heartbeat: "2s" },
});

await serveAgents([slowAgent]);
