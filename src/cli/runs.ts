import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Command } from "commander";
import type { AgentDefinition } from "../core/define-agent.js";
import type { AgentClient } from "../client/agent-client.js";
import { connectClient, withAgents, type ConnectionFlags } from "./connect.js";
import { duration, positiveInt } from "./flags.js";
import { output, type Output } from "./output.js";
import { oneLine } from "../core/printable.js";
import { FlagError, messageLine } from "./render.js";
import type { Globals } from "./flags.js";

/** `durable-agents runs …`: start one, read its state, cancel it, follow it. */
export function runCommands(program: Command, globals: () => Globals & ConnectionFlags): void {
  const runs = program.command("runs").description("Agent runs: start, state, cancel, tail");

  runs
    .command("start <agentModule>")
    .description("Start a run of the agent a module exports (a worker must serve it); prints its id")
    .requiredOption("--prompt <text>", "the user's message")
    .option("--agent <id>", "which agent, when the module exports several")
    .option("--run-id <id>", "the run's id (starting it again attaches to the same run)")
    .option("--wait", "wait until the run completes, fails or defers")
    .action(async (agentModule: string, flags: { prompt: string; agent?: string; runId?: string; wait?: boolean }) => {
      const g = globals();
      const agent = await agentFrom(agentModule, flags.agent);
      const { agents, close } = await connectClient(g);
      const out = output(g);
      try {
        const handle = await agents.start(agent, { prompt: flags.prompt, ...(flags.runId ? { runId: flags.runId } : {}) });
        if (!flags.wait) return out.result({ runId: handle.runId }, () => [oneLine(handle.runId)]);
        const done = out.progress(`run ${handle.runId} is working…`);
        const settled = await handle.settled().finally(done);
        out.result({ runId: handle.runId, ...settled }, () => [
          `run ${oneLine(handle.runId)}: ${settled.status}`,
          ...(settled.status === "completed" ? [settled.text] : settled.status === "deferred" ? [`waiting on ${oneLine(settled.deferralId)}`] : []),
        ]);
      } finally {
        await close();
      }
    });

  runs
    .command("state <runId>")
    .description("Status, turns, token usage and the last messages")
    .option("--tail <n>", "how many messages to show", positiveInt, 6)
    .action(async (runId: string, flags: { tail: number }) => {
      const g = globals();
      await withAgents(g, async (agents) => {
        const state = await agents.state({ runId });
        const tail = state.recentMessages.slice(-flags.tail);
        output(g).result({ runId, ...state }, () => [
          `run      ${oneLine(runId)} (agent ${oneLine(state.agentId)})`,
          `status   ${state.status}${state.deferralId ? ` on ${oneLine(state.deferralId)}` : ""}`,
          `turns    ${state.turnsUsed}${state.maxTurns ? ` of ${state.maxTurns}` : ""}`,
          `tokens   ${state.usage.totalTokens} (${state.usage.promptTokens} in, ${state.usage.completionTokens} out)`,
          ...tail.map((m) => `  ${messageLine(m)}`),
        ]);
      });
    });

  runs
    .command("cancel <runId>")
    .description("Cancel a run: the call in flight is aborted, a deferral it waits on is denied (AI1005)")
    .option("--reason <text>", "why, recorded with the cancellation")
    .action(async (runId: string, flags: { reason?: string }) => {
      const g = globals();
      await withAgents(g, async (agents) => {
        await agents.cancel({ runId, ...(flags.reason ? { reason: flags.reason } : {}) });
        output(g).result({ runId, cancelled: true }, () => [`cancelled: ${oneLine(runId)}`]);
      });
    });

  runs
    .command("tail <runId>")
    .description("Follow a run's steps as they happen, until it completes or fails")
    .option("--interval <duration>", "how often to look (500ms, 2s; at least 50ms)", duration, 500)
    .action(async (runId: string, flags: { interval: number }) => {
      const g = globals();
      await withAgents(g, async (agents) => {
        await tail(agents, runId, Math.max(50, flags.interval), output(g));
      });
    });
}

/** Prints each new message and status change until the run ends; its error (with code) when it fails. */
async function tail(agents: AgentClient, runId: string, intervalMs: number, out: Output): Promise<void> {
  let shown = 0;
  let lastStatus: string | undefined;
  const result = agents.result({ runId }).then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  let ended: Awaited<typeof result> | undefined;
  void result.then((r) => (ended = r));
  for (;;) {
    const finished = ended;
    const state = await agents.state({ runId });
    // New messages, read page by page from the first one not shown yet.
    while (shown < state.messageCount) {
      const page = await agents.listMessages({ runId, cursor: String(shown) });
      for (const m of page.messages) out.line({ runId, message: m }, `${messageLine(m)}\n`);
      shown += page.messages.length;
      if (page.messages.length === 0) break;
    }
    if (state.status !== lastStatus) {
      lastStatus = state.status;
      out.line({ runId, status: state.status, ...(state.deferralId ? { deferralId: state.deferralId } : {}) }, `— ${state.status}${state.deferralId ? ` on ${oneLine(state.deferralId)}` : ""}\n`);
    }
    if (finished) {
      if (!finished.ok) throw finished.error;
      return;
    }
    await Promise.race([result, new Promise((r) => setTimeout(r, intervalMs))]);
  }
}

/** The agent a module exports: the only one, or the one with `--agent`'s id. */
async function agentFrom(path: string, id: string | undefined): Promise<AgentDefinition> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
  } catch (err) {
    throw new FlagError(`cannot load the agent module "${path}": ${(err as Error).message}`);
  }
  const found = Object.values(mod).filter((v): v is AgentDefinition => (v as { kind?: unknown } | null)?.kind === "agent");
  const agent = id ? found.find((a) => a.id === id) : found.length === 1 ? found[0] : undefined;
  if (!agent) {
    const ids = found.map((a) => a.id).join(", ") || "none";
    throw new FlagError(id ? `"${path}" exports no agent with the id "${id}" (it exports: ${ids})` : `"${path}" exports ${found.length} agents (${ids}): pick one with --agent`);
  }
  return agent;
}
