/**
 * The park bell rung once Temporal has stored the park (src/worker/stored-parks.ts): a
 * worker's completion of the parking activation must have been answered first; a
 * completion that fails rings nothing; a worker whose completions cannot be wrapped leaves
 * callers to the history. The end-to-end case (a worker whose completions reach the server
 * late) is in test/settle.test.ts.
 */
import proto from "@temporalio/proto";
import type { Worker } from "@temporalio/worker";
import { describe, expect, it } from "vitest";
import type { DeferredAck } from "../../src/index.js";
import { onParkBell, type ParkBellKey } from "../../src/stream/park-bell.js";
import { StoredParks } from "../../src/worker/stored-parks.js";

const { WorkflowActivationCompletion } = proto.coresdk.workflow_completion;
const key: ParkBellKey = { namespace: "default", taskQueue: "stored-parks", workflowId: "run-1" };
const ack: DeferredAck = { status: "deferred", deferralId: "dfr:1:run-1", expiresAt: "2026-12-07T00:00:00.000Z" };
const completionOf = (runId: string) => Buffer.from(WorkflowActivationCompletion.encodeDelimited({ runId, successful: { commands: [] } }).finish());

/** A worker whose core answers each completion when the test says so. */
function fakeWorker() {
  const pending: Array<{ runId: string; answer: () => void; refuse: (err: Error) => void }> = [];
  const nativeWorker = {
    completeWorkflowActivation: (completion: Buffer) =>
      new Promise<void>((answer, refuse) => pending.push({ runId: WorkflowActivationCompletion.decodeDelimited(completion).runId, answer, refuse })),
  };
  return { worker: { nativeWorker } as unknown as Worker, nativeWorker, pending };
}

const rings = () => {
  const heard: DeferredAck[] = [];
  const stop = onParkBell(key, (a) => heard.push(a));
  return { heard, stop };
};

describe("stored parks", () => {
  it("rings only once the completion of the parking run's activation has been answered", async () => {
    const parks = new StoredParks();
    const { worker, nativeWorker, pending } = fakeWorker();
    const detach = parks.attach(worker);
    const { heard, stop } = rings();
    parks.hold("exec-1", key, ack);
    // Another run's completion rings nothing.
    const other = nativeWorker.completeWorkflowActivation(completionOf("exec-2"));
    pending.shift()!.answer();
    await other;
    expect(heard).toEqual([]);
    const parking = nativeWorker.completeWorkflowActivation(completionOf("exec-1"));
    await Promise.resolve();
    expect(heard).toEqual([]);
    pending.shift()!.answer();
    await parking;
    expect(heard).toEqual([ack]);
    // Once: the run's next completion rings nothing more.
    const next = nativeWorker.completeWorkflowActivation(completionOf("exec-1"));
    pending.shift()!.answer();
    await next;
    expect(heard).toEqual([ack]);
    stop();
    detach();
  });

  it("rings nothing when the completion fails, and passes the failure on", async () => {
    const parks = new StoredParks();
    const { worker, nativeWorker, pending } = fakeWorker();
    const detach = parks.attach(worker);
    const { heard, stop } = rings();
    parks.hold("exec-1", key, ack);
    const parking = nativeWorker.completeWorkflowActivation(completionOf("exec-1"));
    pending.shift()!.refuse(new Error("core refused"));
    await expect(parking).rejects.toThrow("core refused");
    expect(heard).toEqual([]);
    stop();
    detach();
  });

  it("holds nothing for a worker it could not wrap, and puts the worker's own method back on detach", async () => {
    const parks = new StoredParks();
    const { heard, stop } = rings();
    const detachNothing = parks.attach({} as Worker);
    parks.hold("exec-1", key, ack);
    detachNothing();
    const { worker, nativeWorker, pending } = fakeWorker();
    const original = nativeWorker.completeWorkflowActivation;
    const detach = parks.attach(worker);
    expect(nativeWorker.completeWorkflowActivation).not.toBe(original);
    // The hold made before any worker was wrapped was dropped: nothing could have rung it.
    const completing = nativeWorker.completeWorkflowActivation(completionOf("exec-1"));
    pending.shift()!.answer();
    await completing;
    expect(heard).toEqual([]);
    detach();
    expect(nativeWorker.completeWorkflowActivation).toBe(original);
    stop();
  });
});
