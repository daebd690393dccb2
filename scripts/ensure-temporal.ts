/**
 * Makes sure a `temporal` CLI binary exists (finding it or building it with Go) and prints
 * its path on stdout. CI runs this before the tests so the slow build is a separate,
 * clearly-labelled step instead of a hook timeout.
 *
 *   npx tsx scripts/ensure-temporal.ts
 */
import { TemporalUnavailableError } from "../src/testing/dev-server.js";
import { findTemporalBinary, installTemporalBinary } from "../src/testing/temporal-binary.js";

const log = (line: string): void => {
  process.stderr.write(`[ensure-temporal] ${line}\n`);
};

try {
  const binary = (await findTemporalBinary()) ?? (await installTemporalBinary(log));
  process.stdout.write(`${binary}\n`);
} catch (err) {
  const error = new TemporalUnavailableError([
    "no `temporal` on PATH, in the cache dir or in ~/go/bin",
    `go install: ${(err as Error).message}`,
  ]);
  process.stderr.write(`${error.message}\n`);
  process.exitCode = 1;
}
