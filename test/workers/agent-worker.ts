/**
 * A worker in its own process, so a test can SIGKILL it mid-run. Configured by env:
 * TEMPORAL_ADDRESS, TASK_QUEUE, MODEL_URL, MARK_DIR, WORKER_NAME. Prints "ready" when polling.
 */
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineAgent, defineTool } from "../../src/index.js";
import { env, serveAgents } from "./serve.js";

const slowStep = defineTool({
  name: "slowStep",
  description: "A step that takes a while",
  input: z.object({ n: z.number() }),
  async handler({ n }, ctx) {
    appendFileSync(
      join(env("MARK_DIR"), "calls.jsonl"),
      JSON.stringify({ pid: process.pid, attempt: ctx.attempt, key: ctx.idempotencyKey, n }) + "\n",
    );
    await new Promise((resolve) => setTimeout(resolve, Number(process.env.STEP_MS ?? 3000)));
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
