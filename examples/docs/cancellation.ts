import { Connection } from "@temporalio/client";
import { AgentClient, type AgentDefinition } from "durable-agents";
declare const payouts: AgentDefinition;
declare const runId: string;
declare const prompt: string;
const agents = new AgentClient({ connection: await Connection.connect(), taskQueue: "agents" });
// ---cut---
await agents.cancel({ runId, reason: "customer withdrew" });
await agents.run(payouts, { prompt, timeout: "7d" }); // cancelled if not finished within 7 days, deferrals included
// the run then fails with RunCancelledError (AI1005): { reason, turnsUsed, usage } for the WHOLE run, deferrals included
