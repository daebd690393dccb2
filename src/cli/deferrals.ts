import { Option, type Command } from "commander";
import { DEFERRAL_STATUSES, type DeferralStatus } from "../core/deferral-record.js";
import type { JsonValue } from "../core/json.js";
import type { ChatMessage } from "../core/messages.js";
import type { AgentClient } from "../client/agent-client.js";
import { connectClient, requireDeferralSecret, withAgents, type ConnectionFlags } from "./connect.js";
import { instant, positiveInt } from "./flags.js";
import { age, output, table } from "./output.js";
import { oneLine } from "../core/printable.js";
import { jsonFlag, messageLine } from "./render.js";
import type { Globals } from "./flags.js";

/** `durable-agents deferrals …`: what is parked, one record, resume with a token, deny. */
export function deferralCommands(program: Command, globals: () => Globals & ConnectionFlags): void {
  const deferrals = program.command("deferrals").description("Parked approvals: list, show, resume, deny");

  deferrals
    .command("list")
    .description("Runs' latest deferrals, newest first (Temporal visibility, which trails writes by a moment)")
    .option("--agent <id>", "only this agent's")
    .addOption(new Option("--status <status>", "which records").choices(DEFERRAL_STATUSES).default("deferred"))
    .option("--expiring-before <time>", "only those whose TTL ends before this ISO time", instant)
    .option("--limit <n>", "at most this many rows", positiveInt, 100)
    .action(async (flags: { agent?: string; status: DeferralStatus; expiringBefore?: string; limit: number }) => {
      const g = globals();
      await withAgents(g, async (agents) => {
        const page = await agents.deferrals.list({
          status: flags.status,
          ...(flags.agent ? { agentId: flags.agent } : {}),
          ...(flags.expiringBefore ? { expiringBefore: flags.expiringBefore } : {}),
          limit: flags.limit,
        });
        // Each row's age is the record's: visibility holds expiry, the record the rest.
        const rows = await Promise.all(page.deferrals.map(async (d) => ({ ...d, deferredAt: await agents.deferrals.getRecord({ deferralId: d.deferralId }).then((v) => v.deferredAt, () => undefined) })));
        output(g).result({ deferrals: rows }, () =>
          table(
            ["DEFERRAL", "STATUS", "AGENT", "AGE", "EXPIRES"],
            rows.map((d) => [d.deferralId, d.status, d.agentId ?? "-", age(d.deferredAt), d.expiresAt ? age(d.expiresAt) : "-"]),
          ),
        );
      });
    });

  deferrals
    .command("show <deferralId>")
    .description("The record, its meta and the transcript's last messages (never a token)")
    .option("--tail <n>", "how many transcript messages to show", positiveInt, 6)
    .action(async (deferralId: string, flags: { tail: number }) => {
      const g = globals();
      await withAgents(g, async (agents) => {
        const { digest: _digest, ...record } = await agents.deferrals.getRecord({ deferralId });
        const tail = await transcriptTail(agents, record.runId, flags.tail, record.agentId !== undefined);
        output(g).result({ ...record, transcriptTail: tail }, () => [
          `deferral   ${oneLine(record.id)}`,
          `run        ${oneLine(record.runId)}`,
          `status     ${record.status}${record.deniedReason ? ` (${oneLine(record.deniedReason)})` : ""}`,
          `agent      ${oneLine(record.agentId ?? "-")}   tool ${oneLine(record.toolName ?? "-")} (${oneLine(record.toolCallId)})`,
          `deferred   ${record.deferredAt} (${age(record.deferredAt)} ago)`,
          `expires    ${record.expiresAt} (${age(record.expiresAt)})`,
          ...(record.principal ? [`for        ${JSON.stringify(record.principal)}`] : []),
          ...(record.resumedBy ? [`resumed by ${JSON.stringify(record.resumedBy)} at ${record.resumedAt}`] : []),
          `meta       ${JSON.stringify(record.meta)}`,
          ...(record.schema ? [`schema     ${JSON.stringify(record.schema)}`] : []),
          ...(tail.length > 0 ? ["transcript (last messages):", ...tail.map((m) => `  ${messageLine(m)}`)] : []),
        ]);
      });
    });

  deferrals
    .command("resume")
    .description("Resume with the token a tool handed out; the secret comes from DEFERRAL_SECRET")
    .requiredOption("--token <token>", "the resume token")
    .requiredOption("--payload <json>", "the answer, as JSON")
    .option("--as <principalId>", "who is resuming (recorded as resumedBy)")
    .action(async (flags: { token: string; payload: string; as?: string }) => {
      const g = globals();
      const payload = jsonFlag(flags.payload, "--payload") as JsonValue;
      requireDeferralSecret(g.io);
      const { agents, close } = await connectClient(g);
      const out = output(g);
      const done = out.progress("resuming, waiting for the run's next settled state…");
      try {
        const resumed = await agents.resume({ token: flags.token, payload, ...(flags.as ? { principal: { id: flags.as } } : {}) });
        done();
        out.result(resumed, () => [`${resumed.status}: ${oneLine(resumed.deferralId)}`, `outcome: ${JSON.stringify(resumed.outcome)}`]);
      } finally {
        done();
        await close();
      }
    });

  deferrals
    .command("deny <deferralId>")
    .description("Deny a parked deferral: its tokens read RC5050, and the model is told it was denied")
    .requiredOption("--reason <text>", "why, as the model and the record will say")
    .action(async (deferralId: string, flags: { reason: string }) => {
      const g = globals();
      await withAgents(g, async (agents) => {
        const denied = await agents.deferrals.deny({ deferralId, reason: flags.reason });
        output(g).result(denied, () => [`denied: ${oneLine(denied.deferralId)} (${oneLine(flags.reason)})`]);
      });
    });
}

/** The last `n` messages of an agent run's transcript, read as a page (a plain workflow has none). */
async function transcriptTail(agents: AgentClient, runId: string, n: number, isAgentRun: boolean): Promise<ChatMessage[]> {
  if (!isAgentRun) return [];
  const { total } = await agents.listMessages({ runId, limit: 1 });
  return (await agents.listMessages({ runId, cursor: String(Math.max(0, total - n)), limit: Math.min(n, 1000) })).messages;
}
