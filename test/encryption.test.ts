/**
 * Payloads encrypted with `aesGcmCodec`: the same codec on the worker and the client, and
 * nothing a user wrote (prompt, principal, tool arguments and results, `meta`, the resume
 * payload) appears in the bytes Temporal stores; a run parked under one key resumes after
 * the current key changed, as long as the old one is kept.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aesGcmCodec, type AgentClient } from "../src/index.js";
import { encryptedWorker, storedBytes as storedBytesOf } from "./codec-support.js";
import { linkFor, payoutAgent } from "./fixtures/approvals.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const keyA = randomBytes(32);
const keyB = randomBytes(32).toString("base64");

/** A payout worker and a client that encode payloads with `codec`, on `taskQueue` when given. */
const encrypted = (codec: ReturnType<typeof aesGcmCodec>, taskQueue?: string) => encryptedWorker(h, [payoutAgent], codec, taskQueue ? { taskQueue } : {});
const storedBytes = (workflowId: string, runId?: string) => storedBytesOf(h, workflowId, runId);

/** Parks a payout run whose prompt, principal and approval carry `marker`, resumes it, and returns the run id. */
async function parkAndResume(agents: AgentClient, marker: string): Promise<string> {
  const runId = uid("secret-run");
  h.model.script(`${runId} ${marker}`, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 42 } }] }, { toolCalls: [{ name: "sendPayout", arguments: { amount: 42 } }] }, { text: `paid for ${marker}` }]);
  expect(await agents.run(payoutAgent, { prompt: `${runId} ${marker}`, runId, principal: { id: `user-${marker}` } })).toMatchObject({ status: "deferred" });
  const resumed = await agents.resume({ token: linkFor(runId).token, payload: { approved: true, note: `ok ${marker}` } });
  expect(resumed.outcome).toMatchObject({ status: "completed", result: { text: `paid for ${marker}` } });
  return runId;
}

describe("aesGcmCodec", () => {
  it("keeps prompt, principal, tool calls and results, meta and the resume payload out of the stored history, and the run works", async () => {
    const marker = `MARKER${randomBytes(6).toString("hex")}`;
    const { agents } = await encrypted(aesGcmCodec({ keys: { a: keyA }, current: "a" }));
    const runId = await parkAndResume(agents, marker);
    const stored = await storedBytes(runId);
    expect(stored).not.toContain(marker);
    expect(stored).not.toContain("sent 42");
    expect(stored).toContain("binary/encrypted");

    // The same run without the codec stores all of it in the clear: the check above can fail.
    const plain = await h.worker([payoutAgent], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } });
    const clear = await storedBytes(await parkAndResume(plain.agents, marker));
    expect(clear).toContain(marker);
    expect(clear).toContain("sent 42");
  });

  it("resumes a run parked under one key after the current key changed, the old key kept for reading", async () => {
    const marker = `ROTATE${randomBytes(4).toString("hex")}`;
    const before = await encrypted(aesGcmCodec({ keys: { a: keyA }, current: "a" }));
    const runId = uid("rotated");
    h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 7 } }] }, { text: `approved ${marker}` }]);
    expect(await before.agents.run(payoutAgent, { prompt: runId, runId })).toMatchObject({ status: "deferred" });
    before.worker.shutdown();
    await before.running;

    const after = await encrypted(aesGcmCodec({ keys: { a: keyA, b: keyB }, current: "b" }), before.taskQueue);
    const resumed = await after.agents.resume({ token: linkFor(runId).token, payload: { approved: true } });
    expect(resumed.outcome).toMatchObject({ status: "completed", result: { text: `approved ${marker}` } });
    // What was written before the rotation names key a, what was written after it key b.
    const lines = (await storedBytes(runId)).split("\n");
    expect(lines).toContain("a");
    expect(lines).toContain("b");
  });

  it("refuses keys that are not 32 bytes, and a current key it does not hold, with AI1001", () => {
    expect(() => aesGcmCodec({ keys: { a: randomBytes(16) }, current: "a" })).toThrow(/AI1001.*32/);
    expect(() => aesGcmCodec({ keys: { a: keyA }, current: "b" })).toThrow(/AI1001.*current key "b"/);
    expect(() => aesGcmCodec({ keys: { a: "not base64 of 32 bytes" }, current: "a" })).toThrow(/AI1001/);
  });

  it("refuses to decode a payload encrypted with a key it does not hold, naming the key, and rejects a tampered one", async () => {
    const a = aesGcmCodec({ keys: { a: keyA }, current: "a" });
    const b = aesGcmCodec({ keys: { b: keyB }, current: "b" });
    const [sealed] = await a.encode([{ metadata: { encoding: Buffer.from("json/plain") }, data: Buffer.from('"hello"') }]);
    await expect(b.decode([sealed!])).rejects.toThrow(/key "a"/);
    const [opened] = await a.decode([sealed!]);
    expect(Buffer.from(opened!.data!).toString()).toBe('"hello"');
    const tampered = { ...sealed!, data: Buffer.from(sealed!.data!).map((byte, i) => (i === 20 ? byte ^ 1 : byte)) };
    await expect(a.decode([tampered])).rejects.toThrow();
  });
});
