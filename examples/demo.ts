/**
 * `npm run demo`: a payouts agent that looks up an invoice, asks a human for approval
 * (deferring the whole run), and pays once approved. Runs on an embedded default:
 * a Temporal dev server it starts itself (or TEMPORAL_ADDRESS), and a scripted
 * OpenAI-compatible model (or the real API when OPENAI_API_KEY is set).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { Connection } from "@temporalio/client";
import { DefaultLogger, NativeConnection, Runtime } from "@temporalio/worker";
import { AgentClient } from "../src/index.js";
import { approvalLinks, payouts } from "./payouts-agent.js";
import { startScriptedModelServer, startTemporal, type ScriptedModelServer } from "../src/testing/index.js";
import { createAgentWorker, openaiModel } from "../src/worker.js";

const say = (line: string) => console.log(line);
Runtime.install({ logger: new DefaultLogger("ERROR") });

// --- the embedded default ----------------------------------------------------------------
const PROMPT = "Please pay invoice INV-1042.";

function scriptDemo(model: ScriptedModelServer) {
  model.script(PROMPT, [
    { toolCalls: [{ name: "lookupInvoice", arguments: { invoiceId: "INV-1042" } }] },
    { toolCalls: [{ name: "askApproval", arguments: { invoiceId: "INV-1042", amountEur: 4200, reason: "Acme Robotics invoice due 2026-12-15" } }] },
    { toolCalls: [{ name: "sendPayout", arguments: { invoiceId: "INV-1042", amountEur: 4200 } }] },
    { text: "Invoice INV-1042 (€4,200 to Acme Robotics) was approved and paid: reference PAY-INV-1042." },
  ]);
}

async function main() {
  say("Starting Temporal (TEMPORAL_ADDRESS, or a local dev server) …");
  const server = await startTemporal({ log: (line) => say(`  ${line}`) });
  let scripted: ScriptedModelServer | undefined;
  if (!process.env.OPENAI_API_KEY) {
    scripted = await startScriptedModelServer();
    scriptDemo(scripted);
    say(`Using the scripted model at ${scripted.url} (set OPENAI_API_KEY for a real one).`);
  } else {
    say(`Using ${process.env.OPENAI_BASE_URL ?? "the OpenAI API"} with model ${payouts.model}.`);
  }
  const model = openaiModel(scripted ? { baseURL: scripted.url, apiKey: "scripted" } : { baseURL: process.env.OPENAI_BASE_URL, maxRetries: 2 });

  // Worker and client share the deferral secret; a real deployment reads it from a secret store.
  const secret = randomBytes(32).toString("base64");
  const taskQueue = "durable-agents-demo";
  const native = await NativeConnection.connect({ address: server.address });
  const worker = await createAgentWorker({
    connection: native,
    namespace: server.namespace,
    taskQueue,
    agents: [payouts],
    model,
    deferral: { secret },
    on: {
      deferred: (e) => say(`  [event] deferred ${e.deferralId} (expires ${e.expiresAt})`),
      resumed: (e) => say(`  [event] resumed ${e.deferralId} by ${e.resumedBy?.id}`),
    },
  });
  const running = worker.run();
  const connection = await Connection.connect({ address: server.address });
  const agents = new AgentClient({
    connection,
    namespace: server.namespace,
    taskQueue,
    deferral: { secret },
    // Only someone holding every role the deferral requires may approve.
    authorize: ({ principal, record }) =>
      ((record.meta.requires as string[]) ?? []).every((role) => ((principal?.roles as string[]) ?? []).includes(role)),
  });

  try {
    const runId = `demo-${randomUUID().slice(0, 8)}`;
    say(`\nRun ${runId}: "${PROMPT}" as requester "sam"`);
    let settled = await agents.run(payouts, { prompt: PROMPT, runId, principal: { id: "sam" } });
    while (settled.status === "deferred") {
      const ack = settled;
      say(`\nThe run is parked: ${JSON.stringify({ deferralId: ack.deferralId, expiresAt: ack.expiresAt })}`);
      const link = approvalLinks.find((l) => l.deferralId === ack.deferralId)!;
      const state = await agents.state(runId);
      say(`  state: ${state.status}, ${state.turnsUsed} turns, ${state.usage.totalTokens} tokens so far`);

      say(`\nAn intern clicks the link …`);
      await agents
        .resume({ token: link.token, payload: { approved: true }, principal: { id: "ian", roles: [] } })
        .catch((err: { code?: string; message: string }) => say(`  refused: ${err.message}`));

      say(`The finance approver clicks the link …`);
      const resumed = await agents.resume({
        token: link.token,
        payload: { approved: true, note: "Looks right." },
        principal: { id: "fiona", roles: ["payouts:approve"] },
      });
      say(`  resume: ${resumed.status}; the run continues where it stopped.`);
      const again = await agents.resume({ token: link.token, payload: { approved: true }, principal: { id: "fiona", roles: ["payouts:approve"] } });
      say(`  a second click: ${again.status} (same outcome, nothing runs twice)`);
      settled = resumed.outcome.status === "deferred" ? resumed.outcome : await agents.result(runId);
    }
    say(`\nAnswer: ${settled.text}`);
    say(`Turns: ${settled.turnsUsed}, tokens: ${settled.usage.totalTokens}`);
    scripted?.assertNoFailures();
  } finally {
    worker.shutdown();
    await running;
    await native.close();
    await connection.close();
    await scripted?.close();
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
