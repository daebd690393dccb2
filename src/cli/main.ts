#!/usr/bin/env node
/**
 * `durable-agents`: the operator's command line. Connects the way Temporal's tools do
 * (config profile, then TEMPORAL_* environment variables, then flags); every error prints
 * its code and message and exits non-zero (1 for the SDK's typed errors, 2 for usage, 3 otherwise).
 */
import { Command, CommanderError } from "commander";
import type { ConnectionFlags } from "./connect.js";
import { approvalCommands } from "./approvals.js";
import { deferralCommands } from "./deferrals.js";
import { devCommand } from "./dev.js";
import { httpUrl } from "./flags.js";
import { reportError } from "./output.js";
import { mcpCommand } from "./mcp.js";
import { FlagError, printable } from "./render.js";
import { runCommands } from "./runs.js";
import { threadCommands } from "./threads.js";

export function buildProgram(): Command {
  const program = new Command("durable-agents")
    .description("Operate durable agents on Temporal: parked approvals, runs, threads, a local dev server")
    .option("--json", "print JSON (one document, or one object per line for tails) and no progress")
    .option("--address <host:port>", "Temporal frontend (default: profile, then TEMPORAL_ADDRESS, then localhost:7233)")
    .option("--namespace <ns>", "Temporal namespace (default: profile, then TEMPORAL_NAMESPACE, then default)")
    .option("--profile <name>", "profile of the Temporal config file (TEMPORAL_PROFILE)")
    .option("--task-queue <queue>", "the agents' task queue (default: DURABLE_AGENTS_TASK_QUEUE, then agents)")
    .option("--codec-endpoint <url>", "codec server that decrypts payloads, as for the Temporal CLI (TEMPORAL_CODEC_ENDPOINT)", httpUrl)
    .option("--codec-auth <header>", "Authorization header for the codec server (TEMPORAL_CODEC_AUTH)")
    .showHelpAfterError()
    .exitOverride();
  const globals = () => {
    const o = program.opts<{ json?: boolean } & ConnectionFlags>();
    return { ...o, json: o.json === true };
  };
  devCommand(program, globals);
  deferralCommands(program, globals);
  approvalCommands(program, globals);
  runCommands(program, globals);
  threadCommands(program, globals);
  mcpCommand(program, globals);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version are not failures; usage mistakes were printed by commander already.
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    if (err instanceof FlagError) {
      process.stderr.write(`error: ${printable(err.message)}\n`);
      process.exitCode = 2;
      return;
    }
    reportError(err, program.opts<{ json?: boolean }>().json === true);
  }
}

await main(process.argv);
