import { Connection } from "@temporalio/client";
import { AgentClient, aesGcmCodec, defineAgent } from "durable-agents";
import { createExpenseActivities } from "../plain-workflow/activities.js";
import type { expenseApproval } from "../plain-workflow/workflows.js";
import { address } from "../docs-support/env.js";
const secret = process.env.DEFERRAL_SECRET!;
let sendLink: (token: string) => void = () => undefined;
const linkSent = new Promise<string>((resolve) => (sendLink = resolve));
const myActivities = createExpenseActivities(secret, ({ token }) => sendLink(token));
const encryptionCodec = aesGcmCodec({ keys: { "2026-11": process.env.PAYLOAD_KEY! }, current: "2026-11" });
const weather = defineAgent({ id: "weather", model: "gpt-4.1-mini", system: "Answer briefly." });
// While the worker below runs: an agent run and one of the reader's own workflows on it, then it stops.
const connection = await Connection.connect({ address });
async function exercise(): Promise<void> {
  const agents = new AgentClient({ connection, taskQueue: "agents", dataConverter: { payloadCodecs: [encryptionCodec] }, deferral: { secret } });
  const result = await agents.run(weather, { prompt: "Weather in Bergen?" });
  console.log(result.status === "completed" ? `agent: ${result.text}` : result);
  const expenseId = `expense-${Date.now()}`;
  await agents.client.workflow.start<typeof expenseApproval>("expenseApproval", { workflowId: expenseId, taskQueue: "agents", args: [{ expenseId, amount: 80, approver: "carol" }] });
  console.log(`expense: ${(await agents.handle(expenseId).settled()).status}`);
  const resumed = await agents.resume({ token: await linkSent, payload: { approved: true } });
  console.log(`expense: ${JSON.stringify(resumed.outcome)}`);
  worker.shutdown();
}
const exercised = exercise().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
// ---cut---
import { fileURLToPath } from "node:url";
import { NativeConnection, Worker } from "@temporalio/worker";
import { durableAgentsPlugin, openaiModel } from "durable-agents/worker";

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const worker = await Worker.create({
  connection: await NativeConnection.connect({ address }),
  taskQueue: "agents",
  workflowsPath: here("../plain-workflow/workflows.ts"), // yours: the agent workflows join them in the bundle
  activities: myActivities,
  dataConverter: { payloadCodecs: [encryptionCodec] }, // reaches the SDK's own queries and signals too
  interceptors: { workflowModules: [here("../plain-workflow/interceptors.ts")] }, // yours, e.g. OpenTelemetry's
  plugins: [durableAgentsPlugin({ agents: [weather], model: openaiModel() })],
});
await worker.run();
// ---end---
await exercised;
await Promise.all([connection.close(), worker.options.connection?.close()]);
