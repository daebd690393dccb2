/**
 * The PostgreSQL-backed Temporal server (src/testing/temporal-postgres.ts) from a shell.
 *
 *   npx tsx scripts/temporal-postgres.ts          # start, print the address, stop on Ctrl-C
 *   npx tsx scripts/temporal-postgres.ts --ensure # only install PostgreSQL and build the binaries;
 *                                                 # exit 3 when PostgreSQL cannot be installed
 */
import { ensurePostgresTemporal, PostgresUnavailableError, startPostgresTemporal } from "../src/testing/temporal-postgres.js";

// --ensure, or start, print the address and stop on SIGINT/SIGTERM.
if (process.argv.includes("--ensure")) {
  try {
    await ensurePostgresTemporal();
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    // 3: PostgreSQL itself cannot be had here (.ci/run skips the lane); 1: anything else.
    process.exit(err instanceof PostgresUnavailableError ? 3 : 1);
  }
} else {
  const server = await startPostgresTemporal();
  process.stdout.write(`${server.address}\n`);
  const keepAlive = setInterval(() => undefined, 60_000);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      clearInterval(keepAlive);
      void server.stop();
    });
  }
}
