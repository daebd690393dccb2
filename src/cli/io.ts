/**
 * What a command reads its settings from and writes to. The `durable-agents` binary passes
 * the process's own; a program that embeds the CLI (or a test running many commands at once
 * in one process) passes its own to `main`. Only `mcp` over stdio and `dev` (which stops its
 * server on the process's signals) use the process itself.
 */
export interface CliIo {
  /** The environment the command reads (`TEMPORAL_*`, `DEFERRAL_SECRET`, …). */
  env: Readonly<Record<string, string | undefined>>;
  /** Results: a table, lines, or JSON. */
  stdout(text: string): void;
  /** Errors, usage and progress. */
  stderr(text: string): void;
  /** Whether `stderr` is a terminal: progress spinners are drawn only there. */
  stderrIsTTY: boolean;
}

/** The running process's environment and streams. */
export const processIo: CliIo = {
  env: process.env,
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  get stderrIsTTY() {
    return process.stderr.isTTY === true;
  },
};
