import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { Connection } from "@temporalio/client";
import { NativeConnection } from "@temporalio/worker";
import { AgentClient, defineAgent, defineTool } from "durable-agents";
import { createAgentWorker, openaiModel } from "durable-agents/worker";

const address = process.env.TEMPORAL_ADDRESS ?? "localhost:7233";
const secret = process.env.DEFERRAL_SECRET!; // 32+ random bytes, the same for workers and clients
// ---cut---
const holdPayout = defineTool({
  name: "holdPayout",
  description: "Hold an odd payout until finance has looked at it",
  input: z.object({ payoutId: z.string() }),
  needsApproval: true, // the run parks until finance decides
  approval: { meta: { requires: ["finance"] } },
  handler: async ({ payoutId }) => `held ${payoutId}`,
});
const reconciler = defineAgent({ id: "reconciler", model: "gpt-4.1-mini", system: "Reconcile payouts; hold the odd ones.", tools: [holdPayout] });

const workerConnection = await NativeConnection.connect({ address });
const worker = await createAgentWorker({ connection: workerConnection, taskQueue: "agents", agents: [reconciler], model: openaiModel(), deferral: { secret } });
const connection = await Connection.connect({ address });
await worker.runUntil(async () => {
  const agents = new AgentClient({ connection, taskQueue: "agents", deferral: { secret } });
  const { scheduleId } = await agents.schedules.create({
    scheduleId: "reconcile-every-morning", // its runs: reconcile-every-morning-2026-12-07T06:00:00Z, …
    agent: reconciler,
    spec: { cron: "0 7 * * MON-FRI", timezone: "Europe/Paris" }, // or { every: "1h" }
    prompt: "Reconcile yesterday's payouts",
    principal: { id: "finance-bot" }, // who every run acts for
    overlap: "SKIP", // a morning whose run still waits on finance starts no second one
  });
  await agents.schedules.trigger({ scheduleId }); // one run now, as if the morning had come

  // An ordinary run: it parks on the approval, shows in the inbox, resumes when decided.
  let run = (await agents.schedules.describe({ scheduleId })).recentRuns.at(-1);
  while (run?.status !== "parked") {
    await sleep(200);
    run = (await agents.schedules.describe({ scheduleId })).recentRuns.at(-1);
  }
  const { deferralId } = await agents.state({ runId: run.runId });
  const request = await agents.approvals.get({ approvalId: deferralId! });
  console.log(`${run.runId} waits on finance: ${request.calls[0]!.toolName} ${request.calls[0]!.arguments}`);
  await agents.approvals.decide({ approvalId: request.approvalId, decisions: [{ toolCallId: request.calls[0]!.toolCallId, approved: true }] });
  console.log(`answer: ${(await agents.result({ runId: run.runId })).text}`);

  await agents.schedules.delete({ scheduleId }); // the runs it started stay readable by their ids
});
// ---end---
await Promise.all([connection.close(), workerConnection.close()]);
