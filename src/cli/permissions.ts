import type { Command } from "commander";
import type { StandingPermission } from "../core/approval-permissions.js";
import { oneLine, printableJson } from "../core/printable.js";
import { withAgents, type ConnectionFlags } from "./connect.js";
import type { Globals } from "./flags.js";
import { output, table } from "./output.js";
import { FlagError } from "./render.js";

type HostFlags = { run?: string; thread?: string; as?: string };

/** Exactly one of --run and --thread, as the client takes it, with --as as the caller. */
function target(flags: HostFlags): ({ runId: string } | { threadId: string }) & { principal?: { id: string } } {
  if ((flags.run === undefined) === (flags.thread === undefined)) throw new FlagError("give exactly one of --run <id> or --thread <id>");
  return { ...(flags.run !== undefined ? { runId: flags.run } : { threadId: flags.thread! }), ...(flags.as ? { principal: { id: flags.as } } : {}) };
}

function state(p: StandingPermission): string {
  if (p.revoked) return `revoked ${p.revoked.at}`;
  if (p.until !== undefined && Date.parse(p.until) <= Date.now()) return "lapsed";
  return "in force";
}

/**
 * `durable-agents permissions …`: the standing permissions approvers granted in a run or a
 * thread (docs/approvals.md, "Standing permissions"): list them, revoke one.
 */
export function permissionCommands(program: Command, globals: () => Globals & ConnectionFlags): void {
  const permissions = program.command("permissions").description("Standing permissions granted with approvals in a run or thread: list, revoke");
  permissions
    .command("list")
    .description("Every permission granted in the run or thread, revoked and lapsed ones included (one query)")
    .option("--run <id>", "the run's id")
    .option("--thread <id>", "the thread's id")
    .option("--as <principalId>", "who asks (the authorize hook sees it)")
    .action(async (flags: HostFlags) => {
      const g = globals();
      const where = target(flags);
      await withAgents(g, async (agents) => {
        const list = await agents.approvals.permissions(where);
        output(g).result({ permissions: list }, () =>
          table(
            ["PERMISSION", "TOOL", "STATE", "UNTIL", "FOR", "MATCH", "GRANTED BY"],
            list.map((p) => [oneLine(p.permissionId), oneLine(p.tool), state(p), p.until ?? "-", p.for === "principal" ? `principal ${oneLine(p.principal?.id ?? "-")}` : "anyone", p.match ? printableJson(JSON.stringify(p.match)) : "-", oneLine(p.grantedBy?.id ?? "-")]),
          ),
        );
      });
    });
  permissions
    .command("revoke <permissionId>")
    .description("End a permission: later calls it let through ask again (one update; AI1032 when none with that id is in force)")
    .option("--run <id>", "the run's id")
    .option("--thread <id>", "the thread's id")
    .option("--as <principalId>", "who revokes (recorded on the request that granted it)")
    .action(async (permissionId: string, flags: HostFlags) => {
      const g = globals();
      const where = target(flags);
      await withAgents(g, async (agents) => {
        const revoked = await agents.approvals.revoke({ ...where, permissionId });
        output(g).result(revoked, () => [`revoked: ${oneLine(revoked.permissionId)} (${oneLine(revoked.tool)}) at ${revoked.revoked?.at ?? "-"}`]);
      });
    });
}
