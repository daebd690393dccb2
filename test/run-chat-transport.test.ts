/**
 * `useChat` following a run: `RunChatTransport` over the real front door starts the run a
 * chat id names, streams it as it is written, stops at a gated call's request and, sent back
 * with the approval, decides it and streams the rest; a reload reconnects mid-answer. A run
 * answers one prompt: what would ask it twice is refused and starts nothing.
 */
import type { UIMessage, UIMessageChunk } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool, type AgentClient } from "../src/index.js";
import { RunChatTransport } from "../src/react.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";
import { startHttp, type HttpServer } from "./http-support.js";

const paid: string[] = [];
const sendPayout = defineTool({
  name: "sendPayout",
  description: "Send money",
  input: z.object({ amount: z.number().positive(), to: z.string() }),
  needsApproval: true,
  handler: ({ amount, to }, ctx) => {
    paid.push(ctx.runId);
    return { sent: amount, to };
  },
});
const clerk = defineAgent({ id: "chat-run-clerk", model: "gpt-4.1-mini", system: "You pay.", tools: [sendPayout], maxTurns: 4 });

let h: Harness;
let agents: AgentClient;
let http: HttpServer;
let transport: RunChatTransport;

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([clerk], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } }));
  http = await startHttp({ agents });
  transport = new RunChatTransport({ baseUrl: http.url, agent: clerk.id });
});
afterAll(async () => {
  await http?.close();
  await h?.close();
});

const textOf = (chunks: UIMessageChunk[]) => chunks.flatMap((c) => (c.type === "text-delta" ? [c.delta] : [])).join("");
const userMessage = (text: string): UIMessage => ({ id: uid("ui"), role: "user", parts: [{ type: "text", text }] });
async function read(stream: ReadableStream<UIMessageChunk> | null): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) chunks.push(chunk);
  return chunks;
}
const send = (chatId: string, messages: UIMessage[], messageId?: string) =>
  transport.sendMessages({ chatId, trigger: "submit-message", messageId, abortSignal: undefined, messages });

describe("useChat following a run", () => {
  it("starts the run the chat id names, streams it and finishes; a second prompt in the chat is refused and starts nothing", async () => {
    const chatId = uid("chat-run");
    const answer = "Written while you watched, then finished.";
    h.model.script(chatId, [{ text: answer }]);
    const chunks = await read(await send(chatId, [userMessage(chatId)]));
    expect(chunks[0]).toMatchObject({ type: "start" });
    expect(textOf(chunks)).toBe(answer);
    expect(chunks.at(-1)).toEqual({ type: "finish" });
    expect(await agents.result({ runId: chatId })).toMatchObject({ status: "completed", text: answer });
    expect(await transport.reconnectToStream({ chatId })).toBeNull();
    const loaded = await transport.loadMessages(chatId);
    expect(loaded.map((m) => m.role)).toEqual(["user", "assistant"]);

    const calls = h.model.requests.length;
    await expect(send(chatId, [userMessage(chatId), userMessage("and again?")])).rejects.toMatchObject({ code: "AI1040" });
    await expect(transport.sendMessages({ chatId, trigger: "regenerate-message", messageId: undefined, abortSignal: undefined, messages: [] })).rejects.toMatchObject({ code: "AI1040" });
    expect(h.model.requests.length).toBe(calls);
    expect(await transport.loadMessages(uid("no-run-yet"))).toEqual([]);
  });

  it("ends at a gated call's request; sent back approved, decides it and streams the result and the answer into the same message", async () => {
    const chatId = uid("chat-run-gated");
    h.model.script(chatId, [{ toolCalls: [{ name: "sendPayout", arguments: { amount: 30, to: "acme" } }] }, { text: "Paid acme 30." }]);
    const user = userMessage(chatId);
    const first = await read(await send(chatId, [user]));
    const request = first.find((c) => c.type === "tool-approval-request");
    expect(request).toMatchObject({ approvalId: expect.any(String), toolCallId: expect.any(String) });
    expect(first.at(-1)).toEqual({ type: "finish", finishReason: "tool-calls" });
    expect(paid.filter((id) => id === chatId)).toEqual([]);
    expect(await transport.reconnectToStream({ chatId })).toBeNull();

    // What useChat holds after a reload, then the person's approval.
    const [, answer] = await transport.loadMessages(chatId);
    const part = answer!.parts.find((p) => p.type === "tool-sendPayout") as { toolCallId: string; state: string; approval: { id: string } };
    expect(part).toMatchObject({ state: "approval-requested", approval: { id: request!.type === "tool-approval-request" ? request!.approvalId : "" } });
    const responded = { ...answer!, parts: answer!.parts.map((p) => (p === (part as unknown) ? { ...part, state: "approval-responded", approval: { id: part.approval.id, approved: true } } : p)) };
    const rest = await read(await send(chatId, [user, responded as UIMessage], answer!.id));
    expect(rest).toContainEqual({ type: "tool-output-available", toolCallId: part.toolCallId, output: { sent: 30, to: "acme" } });
    expect(textOf(rest)).toBe("Paid acme 30.");
    expect(rest.at(-1)).toEqual({ type: "finish" });
    expect(paid.filter((id) => id === chatId)).toHaveLength(1);
  });

  it("reconnects mid-answer after a reload: the text so far, then the rest, each once", async () => {
    const chatId = uid("chat-run-reload");
    const slow = "A reload joins the run where it is and reads each word exactly once.";
    const hold = h.model.hold();
    h.model.script(chatId, [{ text: slow, hold, holdAfterChars: slow.indexOf(" where") }]);
    const ac = new AbortController();
    // The first tab goes away without stopping the run (a reload, not useChat's stop()).
    const firstTab = await transport.sendMessages({ chatId, trigger: "submit-message", messageId: undefined, abortSignal: undefined, messages: [userMessage(chatId)] });
    void firstTab.cancel();
    // Mid-answer: the model has written part of it and waits. Its deltas so far are not in the
    // run's log; the reconnected reader gets them from the worker's transport.
    await hold.reached;
    const resumed = await transport.reconnectToStream({ chatId, abortSignal: ac.signal });
    expect(resumed).not.toBeNull();
    hold.release();
    const chunks = await read(resumed);
    expect(textOf(chunks)).toBe(slow);
    expect(chunks.at(-1)).toEqual({ type: "finish" });
  });

  it("ends with the run's typed error when it fails, and refuses a transport without an agent", async () => {
    const chatId = uid("chat-run-fails");
    h.model.script(chatId, [{ errors: [400] }]);
    const chunks = await read(await send(chatId, [userMessage(chatId)]));
    expect(chunks.at(-1)).toMatchObject({ type: "error", errorText: expect.stringMatching(/^\[AI1003\]/) });
    expect(() => new RunChatTransport({ baseUrl: http.url } as never)).toThrow(expect.objectContaining({ code: "AI1001" }));
  });
});
