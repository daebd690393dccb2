/**
 * A client that lacks the workers' payload codec, reading what an encrypting worker wrote:
 * every read of a run and of a thread fails with AI1046, which names the encoding, the
 * client's codec option and the CLI's `--codec-endpoint`, instead of Temporal's bare
 * `ValueError: Unknown encoding`; nothing of the payload is shown, and nothing changes.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aesGcmCodec, AgentClient, CodecMissingError, ThreadsClient, type DeferredAck } from "../src/index.js";
import { encryptedWorker } from "./codec-support.js";
import { payoutAgent } from "./fixtures/approvals.js";
import { startHarness, uid, type Harness } from "./harness.js";
import { chatAgent } from "./thread-support.js";

let h: Harness;
let sealed: AgentClient;
let plain: AgentClient;
let parked: DeferredAck;
let parkedId: string;
let finishedId: string;
const MARKER = `SECRET${randomBytes(4).toString("hex")}`;

beforeAll(async () => {
  h = await startHarness();
  const served = await encryptedWorker(h, [payoutAgent, chatAgent], aesGcmCodec({ keys: { k1: randomBytes(32) }, current: "k1" }));
  sealed = served.agents;
  // The same namespace and task queue, no codec: an operator's script, a service set up without it.
  plain = new AgentClient({ connection: h.connection, namespace: h.namespace, taskQueue: served.taskQueue });

  const runId = uid("sealed-parked");
  h.model.script(runId, [{ text: `thinking about ${MARKER}`, toolCalls: [{ name: "askApproval", arguments: { amount: 31 } }] }]);
  const ack = await sealed.run(payoutAgent, { prompt: runId, runId });
  if (ack.status !== "deferred") throw new Error(`expected a deferral, got ${ack.status}`);
  parked = ack;
  parkedId = runId;
  finishedId = uid("sealed-done");
  h.model.script(finishedId, [{ text: `answer ${MARKER}` }]);
  expect(await sealed.run(payoutAgent, { prompt: finishedId, runId: finishedId })).toMatchObject({ status: "completed" });
});
afterAll(() => h?.close());

/** The read fails with AI1046 naming the encoding and the way out, and shows nothing it could not decode. */
async function expectCodecMissing(read: Promise<unknown>) {
  const err = await read.then(
    (value) => ({ resolved: value }),
    (e: unknown) => e,
  );
  expect(CodecMissingError.isInstance(err)).toBe(true);
  const { message, fields } = err as CodecMissingError;
  expect(fields).toMatchObject({ encoding: "binary/encrypted" });
  expect(message).toMatch(/^\[AI1046\] .*"binary\/encrypted".*payloadCodecs.*--codec-endpoint/);
  expect(message).not.toContain(MARKER);
}

describe("a client without the codec", () => {
  it("reads a run's state, transcript, settled state, result and deferral as AI1046", async () => {
    await expectCodecMissing(plain.state({ runId: parkedId }));
    await expectCodecMissing(plain.listMessages({ runId: parkedId }));
    await expectCodecMissing(plain.handle(parkedId).settled());
    await expectCodecMissing(plain.deferrals.get({ deferralId: parked.deferralId }));
    await expectCodecMissing(plain.result({ runId: finishedId }));
    // Nothing changed: the run is still parked and reads as before through the codec.
    expect(await sealed.state({ runId: parkedId })).toMatchObject({ status: "deferred", deferralId: parked.deferralId });
  });

  it("reads a thread's state, messages and updates as AI1046, through agents.threads and a ThreadsClient of its own", async () => {
    const threadId = uid("sealed-thread");
    const prompt = uid(`hello ${MARKER}`);
    h.model.script(prompt, [{ text: `hi there, ${MARKER}` }]);
    await sealed.threads.createThread({ threadId, agent: chatAgent, prompt });
    expect(await sealed.threads.settled({ threadId })).toMatchObject({ status: "completed" });

    const standalone = new ThreadsClient({ connection: h.connection, namespace: h.namespace, taskQueue: plain.taskQueue });
    for (const threads of [plain.threads, standalone]) {
      await expectCodecMissing(threads.state({ threadId }));
      await expectCodecMissing(threads.listMessages({ threadId }));
      await expectCodecMissing(threads.streamUpdates({ threadId }));
    }
  });
});
