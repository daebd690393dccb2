import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Only the PostgreSQL lane (vitest.postgres.config.ts) has the server these need.
    exclude: ["test/postgres/**", "**/node_modules/**"],
    // Every test file talks to one shared dev server started in globalSetup.
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // Two cores: the dev server, workers and model server already compete for them.
    fileParallelism: false,
    pool: "forks",
  },
});
