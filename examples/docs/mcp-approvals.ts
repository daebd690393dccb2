import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { z } from "zod";
import { defineAgent, defineTool, type ApprovalDetail, type AuthorizeRequest, type Principal, type ResumeResult } from "durable-agents";
import { clientWithWorker, listeningUrl } from "../docs-support/env.js";
const sendPayout = defineTool({
  name: "sendPayout",
  description: "Send a payout",
  input: z.object({ to: z.string(), amountEur: z.number().positive() }),
  needsApproval: true,
  approval: { meta: { requires: ["payouts:approve"] } },
  handler: async ({ to, amountEur }) => `sent €${amountEur} to ${to}`,
});
const payouts = defineAgent({ id: "payouts-mcp-inbox", model: "gpt-4.1-mini", system: "Pay.", tools: [sendPayout] });
// Your sign-in: bearer tokens to principals.
const staff: Record<string, Principal> = { "Bearer fiona-token": { id: "fiona", roles: ["payouts:approve"] }, "Bearer ian-token": { id: "ian", roles: [] } };
// Anyone signed in may read the inbox; deciding needs every role a request requires.
const authorize = (request: AuthorizeRequest) =>
  request.principal !== undefined && (request.operation !== "resume" || ((request.deferral.meta.requires as string[] | undefined) ?? []).every((role) => (request.principal?.roles as string[] | undefined)?.includes(role)));
const { agents, closeAll } = await clientWithWorker({ deferral: { secret: process.env.DEFERRAL_SECRET! }, authorize });
const ack = await agents.run(payouts, { prompt: "Pay ACME and Globex", principal: { id: "sam" } });
if (ack.status !== "deferred") throw new Error(`expected the run to park, it settled as ${ack.status}`);
const approvalId = ack.deferralId;
const connect = async (token: string) => {
  const client = new Client({ name: "approver", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${await listeningUrl(server)}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
};
// ---cut---
import { serve } from "@hono/node-server";
import { createMcpServer } from "durable-agents/mcp";

const mcp = createMcpServer({
  agents, // an AgentClient with deferral: { secret } and an authorize hook that knows your approvers
  tools: [{ agent: payouts, name: "payout", description: "Pays invoices once a person approves" }],
  authenticate: (request) => staff[request.headers.get("authorization") ?? ""],
  approvals: true, // serve list_approvals, get_approval, decide_approval and approval_history too
});
const server = serve({ fetch: mcp.fetch, port: Number(process.env.PORT ?? 8789) }); // PORT=0: any free port

// An approver's MCP client (a desktop assistant, say) reads the request and decides it call by call.
const fiona = await connect("fiona-token");
const request = (await fiona.callTool({ name: "get_approval", arguments: { approvalId } })).structuredContent as unknown as ApprovalDetail;
console.log("acts for", request.actsFor?.id, "asks", request.calls.map((c) => c.arguments).join(" and "));
const [acme, globex] = request.calls.map((c) => c.toolCallId) as [string, string];

const decide = async (client: Client, decisions: unknown) => {
  const answer = await client.callTool({ name: "decide_approval", arguments: { approvalId, decisions, shown: request.callFingerprint } });
  return answer.isError ? `refused ${JSON.stringify(answer._meta?.["durable-agents/error"])}` : (answer.structuredContent as unknown as ResumeResult);
};
// Ian may read it, but the request requires a role he lacks: refused, nothing changes.
const ian = await connect("ian-token");
console.log("ian:", await decide(ian, [{ toolCallId: acme, approved: true }]));
// ACME's payout runs now; the run waits for the other call.
const first = await decide(fiona, [{ toolCallId: acme, approved: true }]);
console.log("acme:", typeof first === "string" ? first : `${first.status} ${first.outcome.status}`);
// The last decision lets the model go on: the answer comes back with it.
console.log("globex:", JSON.stringify(await decide(fiona, { [globex]: { approved: false, reason: "duplicate invoice" } })));
// ---end---
const life = await fiona.callTool({ name: "approval_history", arguments: { approvalId } });
console.log(`history: ${(life.structuredContent as { entries: Array<{ type: string }> }).entries.map((e) => e.type).join(" ")}`);
await ian.close();
await fiona.close();
server.close();
await closeAll();
