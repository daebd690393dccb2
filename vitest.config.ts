import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import { isStrayClientRetry } from "./src/testing/stray-retry.js";

type TestOptions = NonNullable<TestProjectInlineConfiguration["test"]>;

/**
 * Files run at once, in each project (vitest runs projects side by side only when they
 * agree on it). Three on two cores: much of an integration file's time is waiting on the
 * server (task round trips, timers, a killed worker's timeout), and a third file fills it.
 */
const LANES = 3;

/**
 * Tests that need no Temporal server: the pure modules, the scripted model server, the Redis
 * stream transport (on a throwaway redis-server, `startRedis`), lint and the code table. They
 * run in parallel and start no Temporal (`npm run test:unit`).
 */
export const unit: TestOptions = {
  name: "unit",
  include: ["test/unit/**/*.test.ts"],
  maxWorkers: LANES,
  // Pure modules share nothing worth a fresh module graph per file, and importing the SDK
  // anew for each file was two thirds of the project's time (a test that fakes timers
  // restores them in its own hooks).
  isolate: false,
};

/**
 * Tests against the one Temporal dev server global-setup starts, with the workflow bundle it
 * builds once for every worker of the run. vitest.postgres.config.ts runs some of them on
 * Temporal and PostgreSQL with the same settings.
 */
export const integration: TestOptions = {
  name: "integration",
  include: ["test/**/*.test.ts"],
  // test/postgres/ needs the server only the PostgreSQL lane (vitest.postgres.config.ts) starts.
  exclude: ["test/unit/**", "test/postgres/**", "**/node_modules/**"],
  globalSetup: ["test/global-setup.ts"],
  testTimeout: 120_000,
  hookTimeout: 300_000,
  // Every file names its own task queues and ids, so files share the one server safely.
  fileParallelism: true,
  maxWorkers: LANES,
  pool: "forks",
  // A file's process is kept for the next file, with the modules it loaded: loading the SDK,
  // Temporal's worker and the workflow bundle afresh for each of 80 files was a fifth of the
  // suite's CPU. Files share nothing else: each names its own queues and ids and closes what
  // it starts. Temporal allows one Runtime per process, which the setup file installs once.
  isolate: false,
  setupFiles: ["test/test-runtime.ts"],
};

// The unit project's files and the integration files, three at a time;
// `vitest run --project unit` (or `integration`) runs one of them.
export default defineConfig({
  test: {
    projects: [{ test: unit }, { test: integration }],
    // A retry timer of Temporal's client that outlived its connection at a file's teardown
    // (src/testing/stray-retry.ts) is not a failure of the code under test; any other
    // unhandled error still fails the run.
    onUnhandledError: (error) => !isStrayClientRetry(error),
  },
});
