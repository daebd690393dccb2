/**
 * What a scheduled run costs in Temporal's billed actions, beside the same run started with
 * `agents.start` (docs/schedules.md quotes it). Its own dev server with `--metrics-port`,
 * read through the server's `action` counter as `bench cost` does.
 *
 *   npm run bench -- schedules
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { defineAgent } from "../src/index.js";
import { startTemporal } from "../src/testing/index.js";
import { startAgentStack } from "../test/agent-stack.js";
import { actionCounter } from "./actions.js";
import { freePort, installRuntime, MODEL, progress, USAGE } from "./lib.js";

export async function main(): Promise<Record<string, unknown>> {
  installRuntime();
  const metricsPort = await freePort();
  const server = await startTemporal({ local: true, metricsPort, log: (line) => progress(`temporal: ${line}`) });
  const stack = await startAgentStack({ temporal: server });
  const { measure } = actionCounter(metricsPort, stack.namespace);

  try {
    const agent = defineAgent({ id: "cost-scheduled", model: MODEL, system: "Answer." });
    const { agents } = await stack.worker([agent]);
    const prompt = `reconcile ${randomUUID()}`;
    stack.model.respond(prompt, () => ({ text: "reconciled", usage: USAGE }));
    const completedRuns = async (scheduleId: string, n: number) => {
      for (;;) {
        const d = await agents.schedules.describe({ scheduleId });
        if (d.recentRuns.filter((r) => r.status === "completed").length >= n) return d;
        await sleep(100);
      }
    };

    const started = await measure(async () => (await agents.start(agent, { prompt })).result());
    progress(`agents.start, one model call: ${started.total}`);
    const scheduleId = `cost-${randomUUID()}`;
    const created = await measure(() => agents.schedules.create({ scheduleId, agent, prompt, spec: { every: "1h" }, paused: true }));
    progress(`schedules.create: ${created.total}`);
    const triggered = await measure(async () => {
      await agents.schedules.trigger({ scheduleId });
      await completedRuns(scheduleId, 1);
    });
    progress(`trigger and its run: ${triggered.total}`);
    const ticking = `cost-tick-${randomUUID()}`;
    const FIRES = 3;
    const tickCreated = await measure(() => agents.schedules.create({ scheduleId: ticking, agent, prompt, spec: { every: "2s" }, paused: true }));
    const fired = await measure(async () => {
      await agents.schedules.unpause({ scheduleId: ticking });
      await completedRuns(ticking, FIRES);
      await agents.schedules.pause({ scheduleId: ticking });
    });
    const firedRuns = (await agents.schedules.describe({ scheduleId: ticking })).runsStarted;
    progress(`unpause, ${firedRuns} runs on their own, pause: ${fired.total}`);
    const idle = await measure(() => sleep(20_000));
    progress(`two paused schedules for 20 s: ${idle.total}`);
    const deleted = await measure(async () => {
      await agents.schedules.delete({ scheduleId });
      await agents.schedules.delete({ scheduleId: ticking });
    });
    return {
      bench: "schedules",
      startedRun: started,
      scheduleCreate: created,
      triggeredRun: triggered,
      tickCreate: tickCreated,
      firedRuns: { runs: firedRuns, ...fired },
      pausedFor20s: idle,
      deleteTwo: deleted,
    };
  } finally {
    await stack.close();
    await server.stop();
  }
}
