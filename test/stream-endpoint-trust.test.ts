/**
 * Who a worker's stream endpoint serves, on the defaults, tried by each party that is not a
 * reader: an approver holding an approval link (its token carries the thread's id and run
 * id), a process on the same network that floods the endpoint, and a process that took the
 * port of a worker that stopped. None of them reads a word of the thread, none of them takes
 * a real reader's place, and real readers tell the squatter nothing.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { connect as connectTls } from "node:tls";
import { request as plainRequest } from "node:http";
import {
  AgentClient,
  defineAgent,
  defineTool,
  directStreamTransport,
  type ApprovalRequestInfo,
  type AuthorizeRequest,
} from "../src/index.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";
import { announcedEndpoints, intrude, squat } from "./stream-endpoint.js";
import { assistantMessage, deltaText, follow } from "./stream-entries.js";

const WAIT = { timeout: 30_000, interval: 20 };
const OWNER = { id: "owner" };
const IBAN = "IBAN-DE89370400440532013000";
const ANSWER = `Noted: from now on payouts go to ${IBAN}, as you asked, and the old account is closed for them.`;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const notified: ApprovalRequestInfo[] = [];
const payout = defineTool({
  name: "payout",
  description: "Pay out",
  input: z.object({ amountEur: z.number() }),
  needsApproval: true,
  approval: { notify: (request) => void notified.push(request) },
  handler: ({ amountEur }) => `paid ${amountEur}`,
});
const payouts = defineAgent({ id: "payouts-trust", model: "gpt-4.1-mini", system: "You pay out.", tools: [payout], maxTurns: 6 });
const chat = defineAgent({ id: "chat-trust", model: "gpt-4.1-mini", system: "You chat.", tools: [], maxTurns: 2 });

/** The owner may do anything; the approver may decide, and nothing else (not read, not follow the stream). */
function authorize(request: AuthorizeRequest): boolean {
  if (request.principal?.id === "owner") return true;
  return request.principal?.id === "approver" && (request.operation === "resume" || request.operation === "thread.decide");
}

/** The claims any holder reads in a token: base64url JSON between its dots. */
function claimsOf(token: string): { wf: string; fr: string } {
  return JSON.parse(Buffer.from(token.split(".")[2]!, "base64url").toString("utf8"));
}

describe("an approver holding an approval link", () => {
  it("reads nothing of the thread from the worker's endpoint, whatever it asks with the ids the link carries; the owner's reader gets every word", async () => {
    const { agents, taskQueue } = await h.worker([payouts], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, threads: { agent: payouts }, authorize } });
    const threadId = uid("link-holder");
    const midway = h.model.hold();
    // The thread's conversation: the payout, its answer, then the answer to the owner's next message.
    h.model.script(threadId, [{ toolCalls: [{ name: "payout", arguments: { amountEur: 40 } }] }, { text: "Paid 40 EUR." }, { text: ANSWER, holds: [{ hold: midway, afterChars: 30 }] }]);
    await agents.threads.createThread({ threadId, prompt: threadId, principal: OWNER });
    const link = await vi.waitFor(() => notified.find((n) => n.threadId === threadId) ?? Promise.reject(new Error("not notified yet")), WAIT);

    // What the link gives away: the thread's id and its run id, readable by anyone who holds it.
    const { wf, fr } = claimsOf(link.token);
    expect(wf).toBe(threadId);
    const { runId } = await agents.client.workflow.getHandle(threadId).describe();
    expect(fr).toBe(runId);
    // The hook refuses the approver the thread's messages and stream.
    await expect(agents.threads.listMessages({ threadId, principal: { id: "approver" } })).rejects.toMatchObject({ code: "AI1021" });
    // The approver decides with the link, as intended.
    expect(await agents.resume({ token: link.token, payload: { decisions: [{ toolCallId: link.calls[0]!.toolCallId, approved: true }] }, principal: { id: "approver" } })).toMatchObject({ status: "resumed" });
    expect(await agents.threads.settled({ threadId, principal: OWNER })).toMatchObject({ status: "completed" });

    // The approver finds the worker's endpoint (here from the beacon; a scan of the host would do) and asks every way it can.
    const [endpoint] = await announcedEndpoints(agents.client, taskQueue);
    expect(endpoint).toBeDefined();
    const intruder = intrude(endpoint!.url, wf, fr);
    await intruder.tried;

    // The owner's next message, streamed to the owner's reader while the intruder's requests are open.
    const owner = follow(agents.threads, threadId, (u) => u.type === "message" && u.message.content === ANSWER, OWNER);
    await agents.threads.sendMessage({ threadId, prompt: `My new account for payouts is ${IBAN}.`, principal: OWNER });
    await midway.reached;
    await vi.waitFor(() => expect(deltaText(owner.updates()).length).toBeGreaterThanOrEqual(30), WAIT);
    midway.release();
    await owner.done;
    expect(assistantMessage(owner.updates())!.message.content).toBe(ANSWER);

    expect(intruder.received()).not.toContain("IBAN");
    expect(intruder.received()).not.toContain("payouts");
    intruder.close();
  });
});

describe("a process on the same network", () => {
  it("that opens 1,024 connections naming made-up threads and runs takes no reader's place: a reader in another process still gets the answer as it is written", async () => {
    const transport = directStreamTransport({ host: "127.0.0.1" });
    const { agents, taskQueue, worker, running } = await h.worker([chat], { threads: { stream: { transport } }, client: { threads: { agent: chat } } });
    const [endpoint] = await vi.waitFor(async () => {
      const found = await announcedEndpoints(agents.client, taskQueue);
      expect(found).toHaveLength(1);
      return found;
    }, WAIT);
    const target = new URL(endpoint!.url);
    // The flood: half the old plain-HTTP request, half TLS requests without proofs, each held open.
    const flood: Array<{ destroy(): void }> = [];
    await Promise.all(
      Array.from({ length: 1_024 }, (_, i) =>
        new Promise<void>((settle) => {
          const path = `/v${1 + (i % 2)}/threads/made-up-${i}?run=run-${i}`;
          if (i % 2 === 0) {
            const req = plainRequest({ host: target.hostname, port: Number(target.port), path });
            req.on("response", () => settle()).on("error", () => settle()).on("close", () => settle()).end();
            flood.push(req);
            return;
          }
          const socket = connectTls({ host: target.hostname, port: Number(target.port), rejectUnauthorized: false });
          flood.push(socket);
          socket.on("error", () => settle()).on("close", () => settle());
          socket.once("secureConnect", () => {
            socket.write(`GET ${path} HTTP/1.1\r\nhost: x\r\n\r\n`);
            socket.once("data", () => settle());
          });
        }),
      ),
    );
    expect(transport.connections).toBe(0);

    // A reader in another process: a transport of its own, which reaches the worker over the network.
    const elsewhere = directStreamTransport({ host: "127.0.0.1" });
    const reader = new AgentClient({ connection: h.connection, namespace: h.namespace, taskQueue, threads: { agent: chat }, stream: { transport: elsewhere } });
    const threadId = uid("flooded");
    await agents.threads.createThread({ threadId });
    const prompt = uid("through the flood");
    const midway = h.model.hold();
    h.model.script(prompt, [{ text: ANSWER, holds: [{ hold: midway, afterChars: 40 }] }]);
    const follower = follow(reader.threads, threadId);
    await vi.waitFor(() => expect(elsewhere.workerConnections).toBe(1), WAIT);
    await agents.threads.sendMessage({ threadId, prompt });
    await midway.reached;
    // Live: the answer's first words reached the reader before the answer is whole.
    await vi.waitFor(() => expect(deltaText(follower.updates()).length).toBeGreaterThanOrEqual(40), WAIT);
    expect(assistantMessage(follower.updates())).toBeUndefined();
    midway.release();
    await follower.done;
    expect(assistantMessage(follower.updates())!.message.content).toBe(ANSWER);
    for (const f of flood) f.destroy();
    await elsewhere.close();
    worker.shutdown();
    await running;
    await transport.close();
  }, 120_000);
});

describe("a process that took the port of a worker that stopped", () => {
  it("is told nothing by readers (no thread id, no run id, no proof), and its forged message never reaches them; the worker that serves the thread now does", async () => {
    const first = directStreamTransport({ host: "127.0.0.1" });
    const a = await h.worker([chat], { threads: { stream: { transport: first } }, client: { threads: { agent: chat } } });
    const { taskQueue } = a;
    await vi.waitFor(async () => expect(await announcedEndpoints(a.agents.client, taskQueue)).toHaveLength(1), WAIT);
    const port = Number(new URL(first.url!).port);
    a.worker.shutdown();
    await a.running;
    await first.close();
    // Temporal still lists the stopped worker's beacon; a squatter binds its port.
    expect((await announcedEndpoints(a.agents.client, taskQueue)).map((e) => e.url)).toContain(first.url);
    const squatter = await squat(port);
    try {
      const second = directStreamTransport({ host: "127.0.0.1" });
      const b = await h.worker([chat], { taskQueue, threads: { stream: { transport: second } }, client: { threads: { agent: chat } } });
      const elsewhere = directStreamTransport({ host: "127.0.0.1" });
      const reader = new AgentClient({ connection: h.connection, namespace: h.namespace, taskQueue, threads: { agent: chat }, stream: { transport: elsewhere } });
      const threadId = uid("squatted");
      await b.agents.threads.createThread({ threadId });
      const { runId } = await b.agents.client.workflow.getHandle(threadId).describe();
      const prompt = uid("past the squatter");
      const midway = h.model.hold();
      h.model.script(prompt, [{ text: ANSWER, holds: [{ hold: midway, afterChars: 40 }] }]);
      const follower = follow(reader.threads, threadId);
      // The reader reached the worker that runs now (and tried the squatter, which it found in the list too).
      await vi.waitFor(() => expect(elsewhere.workerConnections).toBe(1), WAIT);
      await vi.waitFor(() => expect(squatter.connections()).toBeGreaterThan(0), WAIT);
      await b.agents.threads.sendMessage({ threadId, prompt });
      await midway.reached;
      await vi.waitFor(() => expect(deltaText(follower.updates()).length).toBeGreaterThanOrEqual(40), WAIT);
      midway.release();
      await follower.done;
      expect(assistantMessage(follower.updates())!.message.content).toBe(ANSWER);
      expect(JSON.stringify(follower.updates())).not.toContain("FORGED");
      expect(squatter.told()).not.toContain(threadId);
      expect(squatter.told()).not.toContain(runId);
      expect(squatter.told()).not.toContain("x-durable-agents");
      await elsewhere.close();
      b.worker.shutdown();
      await b.running;
      await second.close();
    } finally {
      await squatter.close();
    }
  }, 120_000);
});
