import { Connection } from "@temporalio/client";
import { NativeConnection } from "@temporalio/worker";
import type { Principal } from "durable-agents";
import { address } from "../docs-support/env.js";
// The mail an approver gets: here printed, and its link kept for the resume below.
let token = "";
async function sendEmail(text: string): Promise<void> {
  console.log(`email: ${text.slice(0, text.indexOf("https://"))}…`);
  token = decodeURIComponent(text.slice(text.lastIndexOf("/") + 1));
}
const owns = (principal: Principal | undefined, _id: string) => principal?.id === "sam";
const connection = await Connection.connect({ address });
const workerConnection = await NativeConnection.connect({ address });
// ---cut---
import { z } from "zod";
import { AgentClient, defineAgent, defineTool } from "durable-agents";
import { createAgentWorker, openaiModel } from "durable-agents/worker";

const askApproval = defineTool({
  name: "askApproval",
  description: "Ask a human to approve a payout",
  input: z.object({ amount: z.number() }),
  async handler({ amount }, ctx) {
    // id and token exist before deferring, so the message carries a working link
    await sendEmail(`Approve ${amount}? https://approve.example/${encodeURIComponent(ctx.deferral.token)}`);
    return ctx.defer({ schema: z.object({ approved: z.boolean() }), ttl: "72h", meta: { requires: ["payouts:approve"] } });
  },
});
const payouts = defineAgent({ id: "payouts", model: "gpt-4.1-mini", system: "Pay approved invoices.", tools: [askApproval] });

// worker and client share a secret of at least 32 bytes (RC5040 otherwise)
const worker = await createAgentWorker({
  connection: workerConnection, taskQueue: "agents", agents: [payouts], model: openaiModel(),
  deferral: { secret: process.env.DEFERRAL_SECRET!, defaultTtl: "72h" },
});
const running = worker.run(); // until worker.shutdown()
const agents = new AgentClient({
  connection, taskQueue: "agents",
  deferral: { secret: process.env.DEFERRAL_SECRET! },
  // one hook for every client operation (see docs/security.md); a resume sees the deferral
  authorize: (req) =>
    req.operation === "resume"
      ? (req.deferral.meta.requires as string[]).every((r) => (req.principal?.roles as string[] | undefined)?.includes(r)) // exactly `true` or RC5056
      : req.operation === "run.start"
        ? req.principal !== undefined
        : owns(req.principal, req.runId ?? (req.threadId ?? req.scheduleId)), // AI1013 / AI1021 otherwise
});

const ack = await agents.run(payouts, { prompt: "Pay invoice 42", principal: { id: "sam" } });
// { status: "deferred", deferralId, schema, expiresAt }: never meta, never a token

const resumed = await agents.resume({ token, payload: { approved: true }, principal: { id: "fiona", roles: ["payouts:approve"] } });
// { status: "resumed" | "duplicate", deferralId, outcome: { status: "completed", result } | { status: "failed", error } | { status: "deferred", ... } }
// ---end---
console.log("run:", ack.status);
console.log("resume:", resumed.status, JSON.stringify(resumed.outcome));
worker.shutdown();
await running;
await Promise.all([connection.close(), workerConnection.close()]);
