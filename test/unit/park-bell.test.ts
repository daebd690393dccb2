/**
 * The park bell: within one process, a worker hands the acknowledgment of a park to the
 * callers waiting on that workflow, and to no one else: not a workflow of the same id on
 * another task queue or namespace, not a caller that stopped listening.
 */
import { describe, expect, it } from "vitest";
import type { DeferredAck } from "../../src/index.js";
import { onParkBell, parkBellListeners, parkBellsServed, ringParkBell, serveParkBells, type ParkBellKey } from "../../src/stream/park-bell.js";

const key: ParkBellKey = { namespace: "default", taskQueue: "payouts", workflowId: "run-1" };
const ack: DeferredAck = { status: "deferred", deferralId: "dfr:1:run-1", expiresAt: "2026-12-07T00:00:00.000Z" };

describe("the park bell", () => {
  it("reaches every caller of that workflow, and only of that workflow", () => {
    const heard: string[] = [];
    const stops = [
      onParkBell(key, () => heard.push("first")),
      onParkBell(key, () => heard.push("second")),
      onParkBell({ ...key, taskQueue: "other" }, () => heard.push("other queue")),
      onParkBell({ ...key, namespace: "staging" }, () => heard.push("other namespace")),
      onParkBell({ ...key, workflowId: "run-2" }, () => heard.push("other run")),
    ];
    ringParkBell(key, ack);
    expect(heard).toEqual(["first", "second"]);
    for (const stop of stops) stop();
    expect(parkBellListeners()).toBe(0);
  });

  it("hands over the acknowledgment as rung, and nothing once a caller stopped listening", () => {
    const heard: DeferredAck[] = [];
    const stop = onParkBell(key, (a) => heard.push(a));
    ringParkBell(key, ack);
    stop();
    ringParkBell(key, { ...ack, deferralId: "dfr:2:run-1" });
    expect(heard).toEqual([ack]);
    // Stopping twice, or a key nobody listens to, changes nothing.
    stop();
    ringParkBell({ ...key, workflowId: "nobody" }, ack);
    expect(parkBellListeners()).toBe(0);
  });

  it("keeps ringing for the others when one caller's listener throws", () => {
    const heard: string[] = [];
    const stops = [
      onParkBell(key, () => {
        throw new Error("a broken caller");
      }),
      onParkBell(key, () => heard.push("still heard")),
    ];
    expect(() => ringParkBell(key, ack)).not.toThrow();
    expect(heard).toEqual(["still heard"]);
    for (const stop of stops) stop();
  });

  it("tells apart keys whose parts would run together as text", () => {
    const heard: string[] = [];
    const stop = onParkBell({ namespace: "a", taskQueue: "b/c", workflowId: "d" }, () => heard.push("b/c"));
    ringParkBell({ namespace: "a/b", taskQueue: "c", workflowId: "d" }, ack);
    ringParkBell({ namespace: "a", taskQueue: "b", workflowId: "c/d" }, ack);
    expect(heard).toEqual([]);
    stop();
  });
});

describe("the queues a worker of this process serves", () => {
  it("are served while any worker on them runs, per namespace and queue", () => {
    const queue = { namespace: "default", taskQueue: "served-queue" };
    expect(parkBellsServed(queue)).toBe(false);
    const first = serveParkBells(queue);
    const second = serveParkBells(queue);
    expect(parkBellsServed(queue)).toBe(true);
    expect(parkBellsServed({ ...queue, namespace: "staging" })).toBe(false);
    first();
    // Stopping twice counts once.
    first();
    expect(parkBellsServed(queue)).toBe(true);
    second();
    expect(parkBellsServed(queue)).toBe(false);
  });
});
