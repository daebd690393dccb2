import type { Command } from "commander";
import type { ThreadFailure } from "../core/thread-contracts.js";
import type { ThreadsClient } from "../client/threads/threads-client.js";
import { connectClient, withAgents, type ConnectionFlags } from "./connect.js";
import { positiveInt } from "./flags.js";
import { age, output, table, type Output } from "./output.js";
import type { Globals } from "./flags.js";
import { oneLine } from "../core/printable.js";

const SETTLED = new Set(["idle", "completed", "failed", "stopped"]);

/** `durable-agents threads …`: list, follow the answer being written, send a message. */
export function threadCommands(program: Command, globals: () => Globals & ConnectionFlags): void {
  const threads = program.command("threads").description("Chat threads: list, tail, send");

  threads
    .command("list")
    .description("Threads on the task queue, newest first")
    .option("--limit <n>", "at most this many", positiveInt, 50)
    .action(async (flags: { limit: number }) => {
      const g = globals();
      await withAgents(g, async (agents) => {
        const page = await agents.threads.listThreads({ limit: flags.limit });
        output(g).result(page, () => table(["THREAD", "AGENT", "AGE"], page.threads.map((t) => [t.threadId, t.agentId ?? "-", age(t.createdAt)])));
      });
    });

  threads
    .command("tail <threadId>")
    .description("Stream the answer as it is written, until the thread settles")
    .action(async (threadId: string) => {
      const g = globals();
      await withAgents(g, async (agents) => {
        await follow(agents.threads, threadId, output(g), -1);
      });
    });

  threads
    .command("send <threadId> <text>")
    .description("Send a message and stream the answer")
    .option("--no-wait", "return once the message is accepted")
    .action(async (threadId: string, text: string, flags: { wait: boolean }) => {
      const g = globals();
      const { agents, close } = await connectClient(g);
      const out = output(g);
      try {
        const from = (await agents.threads.streamUpdates({ threadId })).lastSeq;
        const sent = await agents.threads.sendMessage({ threadId, prompt: text });
        if (!flags.wait) return out.result(sent, () => [`sent: ${oneLine(sent.messageId ?? threadId)}`]);
        await follow(agents.threads, threadId, out, from);
      } finally {
        await close();
      }
    });
}

/**
 * Prints text deltas as they come and each finished message, until the thread settles
 * after `fromSeq` (-1: whatever it is doing now, or at once when it is already settled).
 */
async function follow(threads: ThreadsClient, threadId: string, out: Output, fromSeq: number): Promise<void> {
  // What was printed of each message being written: a finished message replaces its deltas,
  // so only the part a reader has not seen yet is printed when it arrives.
  const printed = new Map<string, string>();
  let moved = fromSeq < 0;
  // Whether the last thing printed ended its line: a tool's progress gets a line of its own.
  let lineEnded = true;
  for await (const batch of threads.followUpdates({ threadId, fromSeq: Math.max(0, fromSeq), pollInterval: "100ms" })) {
    for (const u of batch.updates) {
      if (fromSeq < 0 && u.type !== "text-delta" && u.type !== "status" && u.type !== "tool-progress") continue;
      if (u.type === "text-delta") {
        printed.set(u.messageId, (printed.get(u.messageId) ?? "") + u.text);
        out.line(u, u.text);
        if (u.text) lineEnded = u.text.endsWith("\n");
        continue;
      }
      if (u.type === "tool-progress") {
        // A preview of a tool still running (its result is what the thread keeps): what the handler passed, on one line.
        out.line(u, `${lineEnded ? "" : "\n"}… ${oneLine(u.toolName)}: ${oneLine(JSON.stringify(u.data))}\n`);
        lineEnded = true;
        continue;
      }
      if (u.type === "message" && u.message.role === "assistant") {
        const seen = printed.get(u.message.id) ?? "";
        const content = u.message.content ?? "";
        printed.delete(u.message.id);
        out.line(u, `${content.startsWith(seen) ? content.slice(seen.length) : `\n${content}`}\n`);
        lineEnded = true;
      } else if (u.type === "reset") {
        if (printed.delete(u.messageId)) {
          out.line(u, ` [${oneLine(u.reason)}]\n`);
          lineEnded = true;
        }
      } else if (u.type === "status") {
        moved = true;
        if (u.status === "failed" || u.status === "stopped") {
          out.line(u, `${lineEnded ? "" : "\n"}— ${u.status}\n`);
          lineEnded = true;
        }
      }
    }
    if (moved && SETTLED.has(batch.status)) {
      if (batch.status === "failed") throw new ThreadTurnFailed((await threads.state({ threadId })).lastError);
      return;
    }
  }
}

/** The turn a command followed failed: printed with the thread's error code, exit code 1. */
export class ThreadTurnFailed extends Error {
  override readonly name = "ThreadTurnFailed";
  readonly code: string | undefined;
  constructor(failure: ThreadFailure | undefined) {
    super(failure ? failure.message : "the thread's turn failed");
    this.code = failure?.code;
  }
}
