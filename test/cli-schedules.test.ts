/**
 * `durable-agents schedules …` against the suite's dev server and an in-process worker: each
 * subcommand's output (table and --json), a triggered run that completes, and refusals with
 * their exit codes (1 with the code for what the SDK refuses, 2 for usage mistakes).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { AgentClient } from "../src/index.js";
import { cliEnv, runCli } from "./cli-support.js";
import { weatherAgent } from "./fixtures/agents.js";
import { startHarness, uid, type Harness } from "./harness.js";

let h: Harness;
let agents: AgentClient;
let env: Record<string, string>;

beforeAll(async () => {
  h = await startHarness();
  const served = await h.worker([weatherAgent]);
  agents = served.agents;
  env = cliEnv(h, served.taskQueue);
}, 240_000);
afterAll(() => h?.close());

const cli = (args: string[]) => runCli(args, env);

describe("durable-agents schedules", () => {
  it("creates, describes, lists, triggers, updates, pauses, unpauses and deletes a schedule", async () => {
    const scheduleId = uid("cli-sched");
    const prompt = uid("weather in Oslo");
    h.model.respond(prompt, () => ({ text: "sunny" }));
    const created = await cli(["schedules", "create", weatherAgent.id, "--prompt", prompt, "--cron", "0 7 * * *", "--timezone", "Europe/Oslo", "--schedule-id", scheduleId, "--paused", "--note", "from the cli"]);
    expect(created).toMatchObject({ code: 0, stdout: `${scheduleId}\n` });

    expect(await cli(["schedules", "trigger", scheduleId])).toMatchObject({ code: 0, stdout: `triggered: ${scheduleId}\n` });
    const d = await vi.waitFor(
      async () => {
        const shown = await cli(["--json", "schedules", "describe", scheduleId]);
        const parsed = JSON.parse(shown.stdout);
        expect(parsed.recentRuns[0]?.status).toBe("completed");
        return parsed;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(d).toMatchObject({ scheduleId, agentId: weatherAgent.id, prompt, paused: true, note: "from the cli", overlap: "SKIP", spec: { timezone: "Europe/Oslo" } });
    expect(await agents.result({ runId: d.recentRuns[0].runId })).toMatchObject({ text: "sunny" });
    const human = await cli(["schedules", "describe", scheduleId]);
    expect(human.stdout).toContain(`schedule ${scheduleId} (agent ${weatherAgent.id}`);
    expect(human.stdout).toMatch(/RUN\s+STATUS\s+SCHEDULED/);
    expect(human.stdout).toContain("completed");

    expect((await cli(["schedules", "update", scheduleId, "--prompt", "later", "--every", "2h", "--overlap", "allow-all"])).code).toBe(0);
    expect(JSON.parse((await cli(["--json", "schedules", "describe", scheduleId])).stdout)).toMatchObject({ prompt: "later", overlap: "ALLOW_ALL", paused: true, spec: { intervals: [{ every: 7_200_000 }] } });
    expect(await cli(["schedules", "unpause", scheduleId])).toMatchObject({ code: 0, stdout: `unpaused: ${scheduleId}\n` });
    expect(await cli(["schedules", "pause", scheduleId, "--note", "quiet"])).toMatchObject({ code: 0, stdout: `paused: ${scheduleId}\n` });

    await vi.waitFor(async () => expect((await agents.schedules.list({ agentId: weatherAgent.id })).schedules.map((s) => s.scheduleId)).toContain(scheduleId), { timeout: 20_000, interval: 100 });
    const listed = await cli(["schedules", "list", "--agent", weatherAgent.id]);
    expect(listed.stdout).toMatch(/^SCHEDULE\s+AGENT\s+STATE\s+NEXT\s+LAST RUN/);
    expect(listed.stdout).toContain(scheduleId);
    expect(JSON.parse((await cli(["--json", "schedules", "list"])).stdout).schedules).toEqual(expect.arrayContaining([expect.objectContaining({ scheduleId, paused: true })]));

    expect(await cli(["schedules", "delete", scheduleId])).toMatchObject({ code: 0, stdout: `deleted: ${scheduleId}\n` });
    const gone = await cli(["--json", "schedules", "describe", scheduleId]);
    expect(gone.code).toBe(1);
    expect(JSON.parse(gone.stdout).error.code).toBe("AI1090");
  });

  it("refuses a bad spec with AI1092 (exit 1) and usage mistakes with exit 2, creating nothing", async () => {
    const scheduleId = uid("cli-bad");
    const badCron = await cli(["schedules", "create", weatherAgent.id, "--prompt", "x", "--cron", "when pigs fly", "--schedule-id", scheduleId]);
    expect(badCron.code).toBe(1);
    expect(badCron.stderr).toContain("[AI1092]");
    for (const args of [
      ["--every", "1h", "--cron", "0 * * * *"],
      [],
      ["--every", "soon"],
      ["--every", "1h", "--overlap", "sometimes"],
      ["--every", "1h", "--timezone", "UTC"],
    ]) {
      const res = await cli(["schedules", "create", weatherAgent.id, "--prompt", "x", "--schedule-id", scheduleId, ...args]);
      expect(res.code, args.join(" ")).toBe(2);
    }
    expect((await cli(["schedules", "pause", scheduleId])).stderr).toContain("[AI1090]");
  });
});
