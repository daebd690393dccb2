/**
 * How a workflow-code change ships while runs are parked (docs/upgrading.md): a deferrable workflow parks under version 1, version 2 takes over the task
 * queue, and the parked run resumes under it. The change guarded by `patched()` replays
 * version 1's history and reaches the resumed run; the same change without it cannot.
 */
import { fileURLToPath } from "node:url";
import { Worker } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleAgentWorkflows } from "../src/worker.js";
import type { Outbox } from "../examples/plain-workflow/activities.js";
import { createUpgradeActivities } from "./fixtures/upgrade/activities.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";

let h: Harness;
const mail: Parameters<Outbox>[0][] = [];
const audited: string[] = [];
// The deferral events the workflow emits go nowhere during a replay.
const replayOptions = async (version: string) => ({ workflowBundle: await bundleOf(version), sinks: { durableAgents: { event: { fn: () => undefined } } } });
const bundleOf = (version: string) =>
  bundleAgentWorkflows({ workflowsPath: fileURLToPath(new URL(`./fixtures/upgrade/${version}.ts`, import.meta.url)) });

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

async function serve(version: string, taskQueue?: string) {
  return h.worker([], {
    workflowBundle: await bundleOf(version),
    deferral: { secret: SECRET },
    activities: createUpgradeActivities(SECRET, (m) => mail.push(m), audited),
    client: { deferral: { secret: SECRET } },
    ...(taskQueue ? { taskQueue } : {}),
  });
}

describe("shipping workflow code while runs are parked", () => {
  it("resumes a run parked under version 1 on version 2: patched() code reaches it after the park point only", async () => {
    const v1 = await serve("v1");
    const expenseId = uid("parked");
    await v1.agents.client.workflow.start("upgradeFlow", { workflowId: expenseId, taskQueue: v1.taskQueue, args: [{ expenseId, amount: 40 }] });
    expect(await v1.agents.handle(expenseId).settled()).toMatchObject({ status: "deferred" });
    v1.worker.shutdown();
    await v1.running;

    // Version 2 serves the same queue; a fresh worker has nothing cached, so it replays version 1's history first.
    const v2 = await serve("v2", v1.taskQueue);
    const link = mail.find((m) => m.expenseId === expenseId)!;
    const resumed = await v2.agents.resume({ token: link.token, payload: { approved: true } });
    expect(resumed).toMatchObject({ status: "resumed", outcome: { status: "completed", result: { expenseId, status: "booked" } } });
    expect(audited.filter((a) => a.startsWith(expenseId))).toEqual([`${expenseId}:answered`]);
    const history = await v2.agents.client.workflow.getHandle(expenseId).fetchHistory();
    expect(history.events?.some((e) => e.workflowTaskFailedEventAttributes)).toBe(false);

    // A run started after the upgrade takes both new steps.
    const fresh = uid("fresh");
    await v2.agents.client.workflow.start("upgradeFlow", { workflowId: fresh, taskQueue: v2.taskQueue, args: [{ expenseId: fresh, amount: 5 }] });
    await v2.agents.handle(fresh).settled();
    expect(audited.filter((a) => a.startsWith(fresh))).toEqual([`${fresh}:requested`]);

    // The recorded history of the upgraded run replays on version 2; version 2 without patched() cannot replay it.
    await expect(Worker.runReplayHistory(await replayOptions("v2"), history, expenseId)).resolves.toBeUndefined();
    const unpatched = await Worker.runReplayHistory(await replayOptions("v2-unpatched"), history, expenseId).catch((e: unknown) => e);
    expect(unpatched).toBeInstanceOf(Error);
    expect((unpatched as Error).name).toBe("DeterminismViolationError");
  });
});
