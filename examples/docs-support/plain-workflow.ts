/**
 * Runs the plain workflow of examples/docs/plain-workflow.ts with the activity of
 * examples/docs/plain-workflow-activity.ts, as docs/deferral.md puts them together: the
 * workflow parks on defer(), the link's token resumes it. (A workflow module runs only
 * inside a worker's bundle, so it needs this file to run.)
 */
import { fileURLToPath } from "node:url";
import { Client } from "@temporalio/client";
import { NativeConnection } from "@temporalio/worker";
import { AgentClient } from "durable-agents";
import { bundleAgentWorkflows, createAgentWorker, openaiModel } from "durable-agents/worker";
import { nextLink, requestApproval } from "../docs/plain-workflow-activity.js";
import type { expenseApproval } from "../docs/plain-workflow.js";
import { address, namespace, sourceImports } from "./env.js";

const secret = process.env.DEFERRAL_SECRET!;
const workflowsPath = fileURLToPath(new URL("../docs/plain-workflow.ts", import.meta.url));
const connection = await NativeConnection.connect({ address });
const worker = await createAgentWorker({
  connection, namespace, taskQueue: "expenses", agents: [], model: openaiModel(), activities: { requestApproval }, deferral: { secret },
  workflowBundle: await bundleAgentWorkflows({ workflowsPath, ...sourceImports() }),
});
await worker.runUntil(async () => {
  const agents = new AgentClient({ client: new Client({ connection, namespace }), taskQueue: "expenses", deferral: { secret } });
  const expenseId = `expense-${Date.now()}`;
  await agents.client.workflow.start<typeof expenseApproval>("expenseApproval", { workflowId: expenseId, taskQueue: "expenses", args: [{ expenseId }] });
  const parked = await agents.handle(expenseId).settled();
  console.log(`parked: ${parked.status}, record ${JSON.stringify((await agents.deferrals.getRecord({ deferralId: parked.status === "deferred" ? parked.deferralId : "" })).meta)}`);
  const resumed = await agents.resume({ token: await nextLink, payload: { approved: true } });
  console.log(`resumed: ${JSON.stringify(resumed.outcome)}`);
});
await connection.close();
