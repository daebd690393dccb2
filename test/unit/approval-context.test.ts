import { describe, expect, it } from "vitest";
import { approvalContextOf, MAX_CONTEXT_CHARS, MAX_CONTEXT_MESSAGES } from "../../src/core/approval-context.js";
import type { ChatMessage } from "../../src/core/messages.js";
import type { ThreadMessage } from "../../src/core/thread-contracts.js";

const call = (id: string, name: string): ChatMessage => ({ role: "assistant", content: `calling ${name}`, tool_calls: [{ id, type: "function", function: { name, arguments: "{}" } }] });

describe("approvalContextOf", () => {
  it("stays bounded whatever the transcript holds: a long run, huge messages, an emoji where the cut falls", () => {
    const messages: ChatMessage[] = [{ role: "system", content: "s" }, { role: "user", content: "x".repeat(MAX_CONTEXT_CHARS - 1) + "😀" + "tail" }];
    for (let i = 0; i < 5_000; i++) messages.push(call(`c${i}`, "lookup"), { role: "tool", tool_call_id: `c${i}`, content: "r".repeat(10_000) });
    messages.push(call("gated", "pay"));
    const context = approvalContextOf(messages, "gated")!;
    expect(context.messages).toHaveLength(MAX_CONTEXT_MESSAGES);
    expect(context.toolResults).toHaveLength(MAX_CONTEXT_MESSAGES);
    expect(context.toolResults.every((m) => m.toolName === "lookup" && m.truncated && m.text.length === MAX_CONTEXT_CHARS)).toBe(true);
    // Never half a surrogate pair: the emoji is dropped whole.
    expect(context.request).toEqual({ role: "user", text: "x".repeat(MAX_CONTEXT_CHARS - 1), truncated: true });
    expect(JSON.stringify(context).length).toBeLessThan(8 * (MAX_CONTEXT_CHARS + 100));
  });

  it("is absent when no message made the request's call (a plain workflow, a thread that rolled over)", () => {
    expect(approvalContextOf([{ role: "user", content: "hi" }], "gone")).toBeUndefined();
  });

  it("reads the tool results of the turn that asks, not an earlier one's", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: "first" },
      call("old", "lookup"),
      { role: "tool", tool_call_id: "old", content: "old result" },
      { role: "assistant", content: "answered" },
      { role: "user", content: "second" },
      call("gated", "pay"),
    ];
    expect(approvalContextOf(messages, "gated")).toEqual({
      request: { role: "user", text: "second" },
      messages: [{ role: "assistant", text: "calling lookup" }, { role: "assistant", text: "answered" }, { role: "assistant", text: "calling pay" }],
      toolResults: [],
    });
  });

  it("in a thread, finds the answer that made the request when a later answer reuses its call id", () => {
    const said = (id: string, text: string): ThreadMessage => ({ role: "assistant", content: text, tool_calls: [{ id: "call_0", type: "function", function: { name: "pay", arguments: "{}" } }], id, createdAt: "" });
    const messages: ChatMessage[] = [
      { role: "user", content: "first" },
      said("a1", "first ask"),
      { role: "tool", tool_call_id: "call_0", content: "paid" },
      { role: "user", content: "again" },
      said("a2", "second ask"),
    ];
    expect(approvalContextOf(messages, "call_0", "a1")).toMatchObject({ request: { text: "first" }, messages: [{ text: "first ask" }] });
    expect(approvalContextOf(messages, "call_0", "a2")).toMatchObject({ request: { text: "again" } });
  });
});
