/**
 * Determinism guard. Runs a set of scenarios on a real server, then replays their
 * histories, and every history recorded earlier under test/histories/, against the
 * current workflow code. A change that would break a running (or deferred) workflow
 * fails here. `RECORD_HISTORIES=1 npx vitest run test/replay.test.ts` refreshes the
 * recorded set; keep old files when the workflow changes, they are the point.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { historyFromJSON, historyToJSON } from "@temporalio/common/lib/proto-utils.js";
import { Worker } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentClient } from "../src/client/agent-client.js";
import { startHarness, uid, type Harness } from "./harness.js";
import { weatherAgent } from "./fixtures/agents.js";

const dir = fileURLToPath(new URL("./histories/", import.meta.url));
let h: Harness;
let agents: AgentClient;

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([weatherAgent]));
});
afterAll(() => h?.close());

/** Each scenario leaves one closed run behind whose history is replayed. */
const scenarios: Record<string, (prompt: string) => Promise<unknown>> = {
  "parallel-tools": async (prompt) => {
    h.model.script(prompt, [
      { toolCalls: [{ name: "getWeather", arguments: { city: "Oslo" } }, { name: "add", arguments: { a: 1, b: 2 } }] },
      { toolCalls: [{ name: "nope", arguments: {} }, { name: "add", arguments: { a: "x" } }] },
      { text: "done" },
    ]);
    return agents.run(weatherAgent, { prompt, runId: prompt });
  },
  "max-turns": async (prompt) => {
    const step = { toolCalls: [{ name: "add", arguments: { a: 1, b: 1 } }] };
    h.model.script(prompt, [step, step, step, step]);
    return agents.run(weatherAgent, { prompt, runId: prompt }).catch(() => undefined);
  },
};

describe("replay", () => {
  it("replays the histories of fresh runs against the current workflow code", async () => {
    const histories = [];
    for (const [name, scenario] of Object.entries(scenarios)) {
      const runId = uid(name);
      await scenario(runId);
      const history = await h.connection.workflowService
        .getWorkflowExecutionHistory({ namespace: h.namespace, execution: { workflowId: runId } })
        .then((r) => r.history!);
      histories.push({ workflowId: runId, history });
      if (process.env.RECORD_HISTORIES) writeFileSync(`${dir}${name}.json`, historyToJSON(history));
    }
    await expectReplays(histories);
  });

  it("replays every recorded history under test/histories/", async () => {
    const files = readdirSync(dir).filter((f) => f.endsWith(".json"));
    expect(files.length).toBeGreaterThan(0);
    await expectReplays(
      files.map((f) => ({ workflowId: f, history: historyFromJSON(JSON.parse(readFileSync(`${dir}${f}`, "utf8"))) })),
    );
  });
});

async function expectReplays(histories: Array<{ workflowId: string; history: unknown }>): Promise<void> {
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories({ workflowBundle: h.bundle, replayName: "replay" }, histories as never)) {
    if (result.error) failures.push(`${result.workflowId}: ${String(result.error)}`);
  }
  expect(failures).toEqual([]);
}
