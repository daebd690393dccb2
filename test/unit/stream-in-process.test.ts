/**
 * The default stream transport: live entries between a worker and readers of the same
 * process, with nothing kept and nothing leaked.
 */
import { describe, expect, it, vi } from "vitest";
import { inProcessStreamTransport, type StreamBatch } from "../../src/index.js";
import { inProcessListenedThreads } from "../../src/stream/in-process.js";

const batch = (after: number, ...texts: string[]): StreamBatch => ({
  after,
  entries: texts.map((text, i) => ({ seq: after + i + 1, type: "text-delta", messageId: "m1", text })),
});

let threads = 0;
/** A thread id no other test of the process uses (the transport is process-global). */
const threadId = () => `in-process-${process.pid}-${++threads}`;

describe("inProcessStreamTransport", () => {
  it("is one transport per process, local", async () => {
    const a = inProcessStreamTransport();
    expect(a).toBe(inProcessStreamTransport());
    expect(a.local).toBe(true);
    // A second copy of the module (another bundle, another installed version) finds it too.
    vi.resetModules();
    const copy = await import("../../src/stream/in-process.js");
    expect(copy.inProcessStreamTransport).not.toBe(inProcessStreamTransport);
    expect(copy.inProcessStreamTransport()).toBe(a);
  });

  it("delivers each batch to every listener of its thread, in order, and to no other thread", async () => {
    const transport = inProcessStreamTransport();
    const [one, other] = [threadId(), threadId()];
    const first: StreamBatch[] = [];
    const second: StreamBatch[] = [];
    const elsewhere: StreamBatch[] = [];
    const subs = [
      await transport.subscribe(one, (b) => first.push(b)),
      await transport.subscribe(one, (b) => second.push(b)),
      await transport.subscribe(other, (b) => elsewhere.push(b)),
    ];
    const sent = [batch(0, "Once"), batch(1, " upon"), batch(2, " a time")];
    for (const b of sent) await transport.publish(one, b);
    expect(first).toEqual(sent);
    expect(second).toEqual(sent);
    expect(elsewhere).toEqual([]);
    for (const sub of subs) await sub.unsubscribe();
  });

  it("gives a subscriber that arrives mid-answer the answer's deltas so far, then what follows; of an answer that ended, its message and none of its deltas", async () => {
    const transport = inProcessStreamTransport();
    const id = threadId();
    await transport.publish(id, batch(0, "early"));
    const heard: StreamBatch[] = [];
    const sub = await transport.subscribe(id, (b) => heard.push(b));
    await transport.publish(id, batch(1, "late"));
    expect(heard).toEqual([batch(0, "early"), batch(1, "late")]);
    await sub.unsubscribe();

    // The answer's message ends it: a subscriber after that hears the message (an entry the thread keeps), not the deltas it folds.
    const message = { after: 0, entries: [{ seq: 3, type: "message", message: { id: "m1", role: "assistant", content: "early late" } }] } as StreamBatch;
    await transport.publish(id, message);
    const after: StreamBatch[] = [];
    const next = await transport.subscribe(id, (b) => after.push(b));
    expect(after).toEqual([message]);
    await next.unsubscribe();
  });

  it("goes on past a listener that throws: the others hear the batch and publish resolves", async () => {
    const transport = inProcessStreamTransport();
    const id = threadId();
    const heard: StreamBatch[] = [];
    const subs = [
      await transport.subscribe(id, () => {
        throw new Error("a reader's bug");
      }),
      await transport.subscribe(id, (b) => heard.push(b)),
    ];
    await expect(transport.publish(id, batch(0, "hello"))).resolves.toBeUndefined();
    await transport.publish(id, batch(1, " again"));
    expect(heard).toEqual([batch(0, "hello"), batch(1, " again")]);
    for (const sub of subs) await sub.unsubscribe();
  });

  it("stops delivery to an unsubscribed listener only; the same function subscribed twice is two subscriptions", async () => {
    const transport = inProcessStreamTransport();
    const id = threadId();
    const heard: string[] = [];
    const listener = (b: StreamBatch) => heard.push(`x${b.after}`);
    const twice = [await transport.subscribe(id, listener), await transport.subscribe(id, listener)];
    const other = await transport.subscribe(id, (b) => heard.push(`y${b.after}`));
    await transport.publish(id, batch(0, "a"));
    await twice[0]!.unsubscribe();
    await twice[0]!.unsubscribe(); // idempotent: it does not end the other subscription
    await transport.publish(id, batch(1, "b"));
    await twice[1]!.unsubscribe();
    await transport.publish(id, batch(2, "c"));
    await other.unsubscribe();
    await transport.publish(id, batch(3, "d"));
    expect(heard).toEqual(["x0", "x0", "y0", "x1", "y1", "y2"]);
  });

  it("a listener that unsubscribes while it is called still lets the batch reach the others", async () => {
    const transport = inProcessStreamTransport();
    const id = threadId();
    const heard: number[] = [];
    const self = await transport.subscribe(id, () => void self.unsubscribe());
    const other = await transport.subscribe(id, (b) => heard.push(b.after));
    await transport.publish(id, batch(0, "a"));
    await transport.publish(id, batch(1, "b"));
    expect(heard).toEqual([0, 1]);
    await other.unsubscribe();
  });

  it("forgets a thread once its last listener leaves (10,000 threads leave nothing behind)", async () => {
    const transport = inProcessStreamTransport();
    const before = inProcessListenedThreads();
    const ids = Array.from({ length: 10_000 }, threadId);
    const subs = await Promise.all(ids.flatMap((id) => [transport.subscribe(id, () => {}), transport.subscribe(id, () => {})]));
    expect(inProcessListenedThreads()).toBe(before + ids.length);
    await Promise.all(subs.map((sub) => sub.unsubscribe()));
    expect(inProcessListenedThreads()).toBe(before);
    // close() is a no-op: the process's transport keeps working for everyone else.
    await transport.close();
    const id = threadId();
    const heard: StreamBatch[] = [];
    const sub = await transport.subscribe(id, (b) => heard.push(b));
    await transport.publish(id, batch(0, "still here"));
    expect(heard).toHaveLength(1);
    await sub.unsubscribe();
    expect(inProcessListenedThreads()).toBe(before);
  });
});
