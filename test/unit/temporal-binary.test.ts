import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { findTemporalBinary, TEMPORAL_CLI_RAISED } from "../../src/testing/temporal-binary.js";

// A dev server built by an older recipe (the CLI's own SQLite driver, whose interrupts
// reach the next statement) must be rebuilt, not reused from the cache.
let cacheHome: string;
let bin: string;

beforeEach(async () => {
  cacheHome = await mkdtemp(join(tmpdir(), "temporal-binary-"));
  bin = join(cacheHome, "durable-agents", "bin");
  await mkdir(bin, { recursive: true });
  await writeFile(join(bin, "temporal"), "#!/bin/sh\n");
  await chmod(join(bin, "temporal"), 0o755);
  vi.stubEnv("XDG_CACHE_HOME", cacheHome);
  vi.stubEnv("PATH", "/nonexistent");
  vi.stubEnv("HOME", cacheHome);
});

afterEach(async () => {
  vi.unstubAllEnvs();
  await rm(cacheHome, { recursive: true, force: true });
});

it("skips a cached CLI with no recipe stamp (built by plain go install before the SQLite fix)", async () => {
  expect(await findTemporalBinary()).toBeUndefined();
});

it("skips a cached CLI stamped with another recipe", async () => {
  await writeFile(join(bin, "temporal.recipe"), "github.com/temporalio/cli/cmd/temporal@v1.5.1\nmodernc.org/sqlite@v1.34.1\n");
  expect(await findTemporalBinary()).toBeUndefined();
});

it("uses a cached CLI stamped with today's recipe", async () => {
  await writeFile(join(bin, "temporal.recipe"), ["github.com/temporalio/cli/cmd/temporal@v1.5.1", ...TEMPORAL_CLI_RAISED].join("\n") + "\n");
  expect(await findTemporalBinary()).toBe(join(bin, "temporal"));
});
