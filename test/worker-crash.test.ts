import { mkdtempSync, readFileSync, existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import proto from "@temporalio/proto";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { AgentClient } from "../src/index.js";
import { payoutAgent } from "./fixtures/approvals.js";
import { SECRET, startHarness, tokenFor, uid, type Harness } from "./harness.js";
import { kill, killAll, spawnWorker } from "./workers/spawn.js";

const { EventType, TimeoutType } = proto.temporal.api.enums.v1;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await killAll();
  await h?.close();
});

it("a worker killed with SIGKILL during a tool call loses nothing: a new worker finishes the run", async () => {
  const taskQueue = uid("crash");
  const markDir = mkdtempSync(join(tmpdir(), "crash-"));
  const env = { TEMPORAL_ADDRESS: h.address, TASK_QUEUE: taskQueue, MODEL_URL: h.model.url, MARK_DIR: markDir };
  const prompt = uid("run two slow steps");
  h.model.script(prompt, [
    { toolCalls: [{ name: "slowStep", arguments: { n: 1 } }] },
    { toolCalls: [{ name: "slowStep", arguments: { n: 2 } }] },
    {
      check: (req) => expect(req.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
        "step 1 done by first worker",
        "step 2 done by second worker",
      ]),
      text: "both steps done",
    },
  ]);
  const first = await spawnWorker("agent-worker", { ...env, WORKER_NAME: "first" });
  const agents = new AgentClient({ connection: h.connection, namespace: h.namespace, taskQueue });
  const run = await agents.start("slow", { prompt, runId: uid("crash-run") });

  const calls = () =>
    existsSync(join(markDir, "calls.jsonl"))
      ? readFileSync(join(markDir, "calls.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l))
      : [];
  // A step runs until the test writes its finish file (test/workers/agent-worker.ts).
  const finishStep = (n: number) => writeFileSync(join(markDir, `finish-${n}`), "");
  const calledTimes = (n: number) => calls().filter((c) => c.n === n).length;
  // Step 1 finishes on the first worker; kill it while step 2 is running.
  await vi.waitFor(() => expect(calledTimes(1)).toBe(1), { timeout: 30_000, interval: 50 });
  finishStep(1);
  await vi.waitFor(() => expect(calledTimes(2)).toBe(1), { timeout: 30_000, interval: 50 });
  await kill(first, "SIGKILL");

  // The second worker takes step 2 over once the first one's heartbeat times out, and finishes it.
  const second = await spawnWorker("agent-worker", { ...env, WORKER_NAME: "second" });
  await vi.waitFor(() => expect(calledTimes(2)).toBe(2), { timeout: 30_000, interval: 50 });
  finishStep(2);
  const result = await run.result();
  expect(result.text).toBe("both steps done");
  expect(result.turnsUsed).toBe(3);

  const stepTwo = calls().filter((c) => c.n === 2);
  expect(stepTwo).toHaveLength(2);
  expect(stepTwo[1].attempt).toBe(2);
  expect(stepTwo[1].pid).toBe(second.pid);
  // The idempotency key a tool hands to side-effecting APIs survives the retry.
  expect(stepTwo[1].key).toBe(stepTwo[0].key);
  h.model.assertNoFailures();
});

it("a worker killed with SIGKILL while a run is parked: a new worker takes the resume from the dead worker's sticky queue and finishes the run", async () => {
  const taskQueue = uid("crash-parked");
  const env = { TEMPORAL_ADDRESS: h.address, TASK_QUEUE: taskQueue, MODEL_URL: h.model.url, SECRET };
  const runId = uid("parked");
  h.model.script(runId, [
    { toolCalls: [{ name: "askApproval", arguments: { amount: 7 } }] },
    { toolCalls: [{ name: "sendPayout", arguments: { amount: 7 } }] },
    { text: "paid 7" },
  ]);
  const first = await spawnWorker("approval-worker", env);
  const agents = new AgentClient({ connection: h.connection, namespace: h.namespace, taskQueue, deferral: { secret: SECRET } });
  const ack = await agents.run(payoutAgent, { prompt: runId, runId });
  if (ack.status !== "deferred") throw new Error(`expected a deferral, got ${ack.status}`);
  const token = await tokenFor(agents, ack.deferralId);

  // The next worker starts before the kill (the run is parked: it has nothing to take), so the
  // resume follows the kill at once. The server sends a task to a sticky queue only while its
  // worker polled in the last 10 s: a resume after a slow start would skip the dead queue.
  await spawnWorker("approval-worker", env);
  await kill(first, "SIGKILL");
  const resumed = await agents.resume({ token, payload: { approved: true } });
  expect(resumed.outcome).toEqual(expect.objectContaining({ status: "completed", result: expect.objectContaining({ text: "paid 7" }) }));

  // The resume's task went to the dead worker's sticky queue first and was handed on when
  // its schedule-to-start timeout (short by default, see createAgentWorker) fired, once; or,
  // when the server had already noticed the killed poller, straight to the shared queue (a
  // race this test cannot order: the next test pins the timeout itself).
  const events = (await agents.client.workflow.getHandle(runId).fetchHistory()).events ?? [];
  const stickyTimeouts = events.filter(
    (e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT && e.workflowTaskTimedOutEventAttributes?.timeoutType === TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START,
  );
  expect(stickyTimeouts.length).toBeLessThanOrEqual(1);
  h.model.assertNoFailures();
});

it("the sticky queue's schedule-to-start timeout is one second by default and the worker's own when it sets one", async () => {
  const make = async (worker?: { stickyQueueScheduleToStartTimeout: string }) =>
    (await h.worker([payoutAgent], { deferral: { secret: SECRET }, ...(worker ? { worker } : {}) })).worker;
  expect((await make()).options.stickyQueueScheduleToStartTimeoutMs).toBe(1_000);
  expect((await make({ stickyQueueScheduleToStartTimeout: "7s" })).options.stickyQueueScheduleToStartTimeoutMs).toBe(7_000);
});
