/**
 * `durable-agents`: the operator's command line. Connects the way Temporal's tools do
 * (config profile, then TEMPORAL_* environment variables, then flags); every error prints
 * its code and message and ends non-zero (1 for the SDK's typed errors, 2 for usage, 3 otherwise).
 */
import { Command, CommanderError } from "commander";
import type { ConnectionFlags } from "./connect.js";
import { processIo, type CliIo } from "./io.js";
import { approvalCommands } from "./approvals.js";
import { permissionCommands } from "./permissions.js";
import { deferralCommands } from "./deferrals.js";
import { devCommand } from "./dev.js";
import { httpUrl } from "./flags.js";
import { reportError } from "./output.js";
import { mcpCommand } from "./mcp.js";
import { printable } from "../core/printable.js";
import { FlagError } from "./render.js";
import { runCommands } from "./runs.js";
import { scheduleCommands } from "./schedules.js";
import { threadCommands } from "./threads.js";

export function buildProgram(io: CliIo = processIo): Command {
  const program = new Command("durable-agents")
    .description("Operate durable agents on Temporal: parked approvals, runs, threads, schedules, a local dev server")
    .option("--json", "print JSON (one document, or one object per line for tails) and no progress")
    .option("--address <host:port>", "Temporal frontend (default: profile, then TEMPORAL_ADDRESS, then localhost:7233)")
    .option("--namespace <ns>", "Temporal namespace (default: profile, then TEMPORAL_NAMESPACE, then default)")
    .option("--profile <name>", "profile of the Temporal config file (TEMPORAL_PROFILE)")
    .option("--task-queue <queue>", "the agents' task queue (default: DURABLE_AGENTS_TASK_QUEUE, then agents)")
    .option("--codec-endpoint <url>", "codec server that decrypts payloads, as for the Temporal CLI (TEMPORAL_CODEC_ENDPOINT)", httpUrl)
    .option("--codec-auth <header>", "Authorization header for the codec server (TEMPORAL_CODEC_AUTH)")
    .showHelpAfterError()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride();
  const globals = () => {
    const o = program.opts<{ json?: boolean } & ConnectionFlags>();
    return { ...o, json: o.json === true, io };
  };
  devCommand(program, globals);
  deferralCommands(program, globals);
  approvalCommands(program, globals);
  permissionCommands(program, globals);
  runCommands(program, globals);
  threadCommands(program, globals);
  scheduleCommands(program, globals);
  mcpCommand(program, globals);
  return program;
}

/**
 * Runs one command line (`argv` as `process.argv` holds it: node, the script, then the
 * arguments) and resolves with its exit code. It reads `io.env` and writes to `io`'s streams
 * only, so a program can run several at once.
 */
export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (err) {
    // Help and version are not failures; usage mistakes were printed by commander already.
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof FlagError) {
      io.stderr(`error: ${printable(err.message)}\n`);
      return 2;
    }
    return reportError(err, program.opts<{ json?: boolean }>().json === true, io);
  }
}
