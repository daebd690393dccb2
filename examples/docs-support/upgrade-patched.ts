/**
 * Runs the workflow of examples/docs/upgrade-patched.ts (docs/upgrading.md) as version 2 runs
 * it: a new run takes the patched step, auditing the answer. The token is minted before the
 * start, and its digest is the workflow's argument.
 */
import { fileURLToPath } from "node:url";
import { Client } from "@temporalio/client";
import { NativeConnection } from "@temporalio/worker";
import { AgentClient } from "durable-agents";
import { bundleAgentWorkflows, createAgentWorker, mintResumeToken, openaiModel, resumeDigest } from "durable-agents/worker";
import type { expenseApproval } from "../docs/upgrade-patched.js";
import { address, namespace, sourceImports } from "./env.js";

const secret = process.env.DEFERRAL_SECRET!;
const workflowsPath = fileURLToPath(new URL("../docs/upgrade-patched.ts", import.meta.url));
const connection = await NativeConnection.connect({ address });
const audit = async (expenseId: string) => console.log(`audited ${expenseId}`);
const worker = await createAgentWorker({
  connection, namespace, taskQueue: "expenses-v2", agents: [], model: openaiModel(), activities: { audit }, deferral: { secret },
  workflowBundle: await bundleAgentWorkflows({ workflowsPath, ...sourceImports() }),
});
await worker.runUntil(async () => {
  const agents = new AgentClient({ client: new Client({ connection, namespace }), taskQueue: "expenses-v2", deferral: { secret } });
  const expenseId = `expense-${Date.now()}`;
  // The workflow's first deferral: its id is known before the start.
  const token = mintResumeToken(secret, `dfr:1:${expenseId}`, "approval");
  await agents.client.workflow.start<typeof expenseApproval>("expenseApproval", { workflowId: expenseId, taskQueue: "expenses-v2", args: [expenseId, resumeDigest(token)] });
  console.log(`parked: ${(await agents.handle(expenseId).settled()).status}`);
  const resumed = await agents.resume({ token, payload: { approved: true } });
  console.log(`resumed: ${JSON.stringify(resumed.outcome)}`);
});
await connection.close();
