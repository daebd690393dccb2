/**
 * `npm run demo`: a payouts agent that looks up an invoice and pays it, where the payout tool
 * needs a person's approval: the run parks before the payout runs, a finance approver
 * decides, and only then does it pay. Runs on an embedded default:
 * a Temporal dev server it starts itself (or TEMPORAL_ADDRESS), and a scripted
 * OpenAI-compatible model (or the real API when OPENAI_API_KEY is set).
 *
 * The approval goes through the HTTP front door (`durable-agents/http`): the demo prints
 * the approval page's URL. `npm run demo -- --serve` (or `npm run serve`) then keeps the
 * worker, the model and the server up so you can open the link, approve, and watch the
 * run finish; without it, the demo clicks through the API itself.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Connection } from "@temporalio/client";
import { DefaultLogger, NativeConnection, Runtime } from "@temporalio/worker";
import { AgentClient, type Principal } from "../src/index.js";
import { approvalUrl, createAgentHttpHandler } from "../src/http.js";
import { approvalLinks, payouts } from "./payouts-agent.js";
import { startScriptedModelServer, startTemporal, type ScriptedModelServer } from "../src/testing/index.js";
import { createAgentWorker, openaiModel } from "../src/worker.js";

const say = (line: string) => console.log(line);
Runtime.install({ logger: new DefaultLogger("ERROR") });

const SERVE = process.argv.includes("--serve");
// PORT=0: any free port; the demo prints the one it got.
const PORT = Number(process.env.PORT ?? 8787);

// --- the embedded default ----------------------------------------------------------------
const PROMPT = "Please pay invoice INV-1042.";

function scriptDemo(model: ScriptedModelServer) {
  const steps = [
    { toolCalls: [{ name: "lookupInvoice", arguments: { invoiceId: "INV-1042" } }] },
    { toolCalls: [{ name: "sendPayout", arguments: { invoiceId: "INV-1042", amountEur: 4200 } }] },
  ];
  // After the decision, the scripted model reads the payout's result like a real one would.
  model.respond(PROMPT, (request, turn) => {
    if (turn < steps.length) return steps[turn]!;
    const result = String(request.messages.filter((m) => m.role === "tool").at(-1)?.content ?? "");
    if (result.startsWith("Rejected")) return { text: `The payout for INV-1042 was not approved: ${result}` };
    const paid = JSON.parse(result) as { reference: string; amountEur: number };
    return { text: `Invoice INV-1042 (€${paid.amountEur} to Acme Robotics) was approved and paid: reference ${paid.reference}.` };
  });
}

// The demo's stand-in for your login: the browser is Fiona, the finance approver; the
// scripted clicks below name another person in a header.
const PEOPLE: Record<string, Principal> = {
  fiona: { id: "fiona", roles: ["payouts:approve"] },
  ian: { id: "ian", roles: [] },
};

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
  // A queue of its own per demo: two demos on one server (two terminals, two tests) never run each other's tools.
  const taskQueue = `durable-agents-demo-${randomUUID().slice(0, 8)}`;
  const connection = await Connection.connect({ address: server.address });
  const agents = new AgentClient({
    connection,
    namespace: server.namespace,
    taskQueue,
    deferral: { secret },
    // Only someone holding every role the request requires may decide; the demo leaves every other operation open.
    authorize: (req) =>
      req.operation !== "resume" || ((req.deferral.meta.requires as string[]) ?? []).every((role) => ((req.principal?.roles as string[]) ?? []).includes(role)),
  });

  // The HTTP front door: the same client, behind authentication. Up before the worker, whose
  // approval links name the port it got (PORT=0 takes any free one).
  const handler = createAgentHttpHandler({ agents, console: true, authenticate: (request) => PEOPLE[request.headers.get("x-demo-user") ?? "fiona"] });
  const http = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: handler, port: PORT, hostname: "127.0.0.1" }, () => resolve(s as Server));
    s.once("error", reject);
  });
  const base = `http://localhost:${(http.address() as AddressInfo).port}`;
  say(`HTTP front door on ${base} (POST /runs, /resume, /threads …, GET /approve, GET /approvals).`);

  const native = await NativeConnection.connect({ address: server.address });
  const worker = await createAgentWorker({
    connection: native,
    namespace: server.namespace,
    taskQueue,
    agents: [payouts],
    model,
    deferral: { secret, approvalUrl: `${base}/approve` },
    on: {
      deferred: (e) => say(`  [event] deferred ${e.deferralId} (expires ${e.expiresAt})`),
      resumed: (e) => say(`  [event] resumed ${e.deferralId} by ${e.resumedBy?.id}`),
    },
  });
  const running = worker.run();
  const post = async (path: string, body: unknown, user: string) => {
    const response = await fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", "x-demo-user": user }, body: JSON.stringify(body) });
    return (await response.json()) as Record<string, any>;
  };

  try {
    const runId = `demo-${randomUUID().slice(0, 8)}`;
    say(`\nRun ${runId}: "${PROMPT}" as requester "sam"`);
    let settled = await agents.run(payouts, { prompt: PROMPT, runId, principal: { id: "sam" } });
    if (settled.status === "deferred") {
      const ack = settled;
      say(`\nThe run is parked: ${JSON.stringify({ deferralId: ack.deferralId, expiresAt: ack.expiresAt })}`);
      // The notify hook runs once the run has parked: wait for its message.
      let link = approvalLinks.find((l) => l.approvalId === ack.deferralId);
      for (let i = 0; !link && i < 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        link = approvalLinks.find((l) => l.approvalId === ack.deferralId);
      }
      if (!link) throw new Error("the approval request's notification never came");
      const request = await agents.approvals.get({ approvalId: ack.deferralId });
      say(`  waiting on: ${request.calls.map((c) => `${c.toolName}(${c.arguments})`).join(", ")}; nothing has been paid`);
      const state = await agents.state({ runId });
      say(`  state: ${state.status}, ${state.turnsUsed} turns, ${state.usage.totalTokens} tokens so far`);
      say(`\nApproval page: ${approvalUrl(`${base}/approve`, link.token)}`);
      say(`Console (every run and thread; this one waits on an approval): ${base}/console`);
      say(`Console (the run, its conversation and timeline): ${base}/console/runs/${encodeURIComponent(runId)}`);
      const decisions = request.calls.map((c) => ({ toolCallId: c.toolCallId, approved: true as const }));

      if (SERVE) {
        say(`\nOpen it in a browser, answer, and watch the run finish here. Ctrl-C to stop.`);
        const result = await agents.result({ runId });
        say(`\nAnswer: ${result.text}`);
        say(`Turns: ${result.turnsUsed}, tokens: ${result.usage.totalTokens}`);
        say(`\nStill serving ${base}; the link now shows the answer. Ctrl-C to stop.`);
        await new Promise<void>((resolve) => process.once("SIGINT", () => resolve()));
        return;
      }

      say(`\nAn intern posts an approval to ${base}/resume …`);
      const refused = await post("/resume", { token: link.token, payload: { decisions } }, "ian");
      say(`  refused: ${refused.error?.code} ${refused.error?.message}`);

      say(`The finance approver posts hers …`);
      const resumed = await post("/resume", { token: link.token, payload: { decisions: decisions.map((d) => ({ ...d, note: "Looks right." })) } }, "fiona");
      say(`  resume: ${resumed.status}; the run continues where it stopped, and pays.`);
      const again = await post("/resume", { token: link.token, payload: { decisions } }, "fiona");
      say(`  a second click: ${again.status} (same outcome, nothing runs twice)`);
      settled = await agents.result({ runId });
    }
    say(`\nAnswer: ${settled.text}`);
    say(`Turns: ${settled.turnsUsed}, tokens: ${settled.usage.totalTokens}`);
    scripted?.assertNoFailures();
  } finally {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
    // The worker stops itself on Ctrl-C (its default shutdown signals); shutting down twice throws.
    if (worker.getState() === "RUNNING") worker.shutdown();
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
