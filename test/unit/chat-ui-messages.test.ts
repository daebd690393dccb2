import { describe, expect, it } from "vitest";
import { emptyFold, foldStreamUpdates, toUIMessages, withStoredMessages, type ThreadFold } from "../../src/index.js";
import type { StreamUpdate } from "../../src/index.js";
import { assistant, at, system, tool, user } from "./thread-messages.js";

describe("toUIMessages", () => {
  it("maps user and assistant text, and leaves system messages out unless asked", () => {
    const messages = [system("s", "be brief"), user("u1", "hi"), assistant("a1", "hello")];
    expect(toUIMessages(messages)).toEqual([
      { id: "u1", role: "user", metadata: { key: "u1", status: "success", createdAt: at, messageIds: ["u1"] }, parts: [{ type: "text", text: "hi" }] },
      {
        id: "a1",
        role: "assistant",
        metadata: { key: "a1", status: "success", createdAt: at, messageIds: ["a1"] },
        parts: [{ type: "step-start" }, { type: "text", text: "hello", state: "done" }],
      },
    ]);
    const withSystem = toUIMessages(messages, { excludeSystemMessages: false });
    expect(withSystem[0]).toEqual({ id: "s", role: "system", metadata: { key: "s", status: "success", createdAt: at, messageIds: ["s"] }, parts: [{ type: "text", text: "be brief" }] });
    expect(withSystem).toHaveLength(3);
  });

  it("gives every tool state: input-available without a result, output-available (JSON and text), output-error", () => {
    const messages = [
      user("u", "go"),
      assistant("a1", "Let me check.", [
        ["c1", "lookup", '{"word":"cat"}'],
        ["c2", "askHuman", '{"question":"ok?"}'],
        ["c3", "lookup", '{"word":"dog"}'],
        ["c4", "slowTask", '{"job":"x"}'],
      ]),
      tool("t1", "c1", "cat means 3 letters"),
      tool("t3", "c3", '{"letters":3}'),
      tool("t4", "c4", "Error: the task failed"),
    ];
    const [, answer] = toUIMessages(messages);
    expect(answer!.metadata.messageIds).toEqual(["a1", "t1", "t3", "t4"]);
    expect(answer!.parts).toEqual([
      { type: "step-start" },
      { type: "text", text: "Let me check.", state: "done" },
      { type: "tool-lookup", toolCallId: "c1", state: "output-available", input: { word: "cat" }, output: "cat means 3 letters" },
      { type: "tool-askHuman", toolCallId: "c2", state: "input-available", input: { question: "ok?" } },
      { type: "tool-lookup", toolCallId: "c3", state: "output-available", input: { word: "dog" }, output: { letters: 3 } },
      { type: "tool-slowTask", toolCallId: "c4", state: "output-error", input: { job: "x" }, errorText: "the task failed" },
    ]);
  });

  it("shows a running call's latest progress right after its part, and nothing for a call with a result or not in the messages", () => {
    const messages = [user("u", "go"), assistant("a1", "", [["c1", "export", "{}"], ["c2", "lookup", "{}"]]), tool("t2", "c2", "found")];
    const report = (toolCallId: string, data: unknown) => ({ seq: 0 as const, type: "tool-progress" as const, toolCallId, toolName: "export", data: data as never, at });
    const progress = [report("c1", { done: 3, of: 10 }), report("c2", { done: 1, of: 1 }), report("elsewhere", "x")];
    const [, answer] = toUIMessages(messages, { progress });
    expect(answer!.parts.map((p) => p.type)).toEqual(["step-start", "tool-export", "data-tool-progress", "tool-lookup"]);
    expect(answer!.parts[2]).toEqual({ type: "data-tool-progress", id: "c1", data: { toolCallId: "c1", toolName: "export", data: { done: 3, of: 10 }, at } });
    // Without reports, no data parts.
    expect(toUIMessages(messages)[1]!.parts.some((p) => p.type === "data-tool-progress")).toBe(false);
  });

  it("shows a compaction's summary as a message of its own, marked, without the heading the model reads", () => {
    const messages = [user("u1", "hi"), assistant("a1", "hello"), assistant("s", "Summary of the earlier conversation:\nThey said hi."), assistant("a2", "and then?")];
    const ui = toUIMessages(messages);
    expect(ui.map((m) => [m.id, m.metadata.summary ?? false])).toEqual([["u1", false], ["a1", false], ["s", true], ["a2", false]]);
    expect(ui[2]!.parts).toEqual([{ type: "text", text: "They said hi.", state: "done" }]);
  });

  it("keeps arguments that are not JSON as their text, and ignores a result with no call to attach to", () => {
    const [, answer] = toUIMessages([user("u", "go"), assistant("a", null, [["c1", "lookup", "{not json"]]), tool("t", "c1", "Error: bad arguments"), tool("t2", "nope", "orphan")]);
    expect(answer!.parts).toEqual([{ type: "step-start" }, { type: "tool-lookup", toolCallId: "c1", state: "output-error", input: "{not json", errorText: "bad arguments" }]);
    expect(answer!.metadata.messageIds).toEqual(["a", "t"]);
    // A result with no answer open at all (right after a user message) is dropped too.
    expect(toUIMessages([user("u", "x"), tool("t", "c", "r")])).toHaveLength(1);
  });

  it("makes one assistant message of a multi-step turn, and a new one after the next user message", () => {
    const messages = [
      user("u1", "go"),
      assistant("a1", null, [["c1", "lookup", '{"word":"a"}']]),
      tool("t1", "c1", "a means 1 letters"),
      assistant("a2", "Done."),
      user("u2", "again"),
      assistant("a3", "Again done."),
    ];
    const ui = toUIMessages(messages);
    expect(ui.map((m) => [m.id, m.role])).toEqual([
      ["u1", "user"],
      ["a1", "assistant"],
      ["u2", "user"],
      ["a3", "assistant"],
    ]);
    expect(ui[1]!.parts.map((p) => p.type)).toEqual(["step-start", "tool-lookup", "step-start", "text"]);
    expect(ui[1]!.metadata.messageIds).toEqual(["a1", "t1", "a2"]);
  });

  it("shows a draft as a streaming answer: new after a user message, or the next step of the answer in progress", () => {
    const fresh = toUIMessages([user("u", "go")], { draft: { messageId: "d1", text: "Hel", toolCalls: [] } });
    expect(fresh[1]).toEqual({
      id: "d1",
      role: "assistant",
      metadata: { key: "d1", status: "streaming", messageIds: [] },
      parts: [{ type: "step-start" }, { type: "text", text: "Hel", state: "streaming" }],
    });
    const next = toUIMessages([user("u", "go"), assistant("a1", null, [["c1", "lookup", '{"word":"a"}']]), tool("t1", "c1", "ok")], {
      draft: { messageId: "d2", text: "", toolCalls: [{ toolCallId: "c2", toolName: "lookup", arguments: '{"wo' }, { toolCallId: "c3", toolName: "lookup", arguments: '{"word":"b"}' }] },
    });
    expect(next).toHaveLength(2);
    expect(next[1]!.id).toBe("a1");
    expect(next[1]!.metadata.status).toBe("streaming");
    expect(next[1]!.parts.slice(2)).toEqual([
      { type: "step-start" },
      { type: "tool-lookup", toolCallId: "c2", state: "input-streaming", input: undefined },
      { type: "tool-lookup", toolCallId: "c3", state: "input-streaming", input: { word: "b" } },
    ]);
    // An empty draft (nothing streamed yet) shows nothing.
    expect(toUIMessages([user("u", "go")], { draft: { messageId: "d", text: "", toolCalls: [] } })).toHaveLength(1);
  });
});

describe("folding the stream", () => {
  const delta = (seq: number, text: string, messageId = "m1"): StreamUpdate => ({ seq, type: "text-delta", messageId, text });

  it("builds the draft from deltas, applies each seq once, and replaces the draft with the stored message", () => {
    let fold: ThreadFold = withStoredMessages(emptyFold("streaming"), [user("u", "go")]);
    fold = foldStreamUpdates(fold, [delta(1, "Hel"), delta(2, "lo ")]);
    // A reconnect that overlaps what was applied adds nothing twice.
    fold = foldStreamUpdates(fold, [delta(1, "Hel"), delta(2, "lo "), delta(3, "world")]);
    expect(fold.draft?.text).toBe("Hello world");
    expect(fold.lastSeq).toBe(3);
    fold = foldStreamUpdates(fold, [
      { seq: 4, type: "message", message: assistant("m1", "Hello world") },
      { seq: 5, type: "status", status: "completed", previousStatus: "streaming", at },
    ]);
    expect(fold.draft).toBeUndefined();
    expect(fold.messages.map((m) => m.id)).toEqual(["u", "m1"]);
    expect(fold.status).toBe("completed");
    // The same message again (a replayed window) is not stored twice.
    fold = foldStreamUpdates({ ...fold, lastSeq: 0 }, [{ seq: 4, type: "message", message: assistant("m1", "Hello world") }]);
    expect(fold.messages).toHaveLength(2);
  });

  it("drops the draft on reset, and starts over after a retry's reset", () => {
    let fold = foldStreamUpdates(emptyFold(), [delta(1, "partial"), { seq: 2, type: "reset", messageId: "m1", reason: "stopped" }]);
    expect(fold.draft).toBeUndefined();
    fold = foldStreamUpdates(fold, [delta(3, "first try"), { seq: 4, type: "reset", messageId: "m1", reason: "retry" }, delta(5, "second")]);
    expect(fold.draft?.text).toBe("second");
    // A reset for another message leaves this draft alone.
    fold = foldStreamUpdates(fold, [{ seq: 6, type: "reset", messageId: "other", reason: "failed" }]);
    expect(fold.draft?.text).toBe("second");
  });

  it("collects tool-input deltas per call, and a stored page clears the draft it stores", () => {
    let fold = foldStreamUpdates(emptyFold(), [
      { seq: 1, type: "tool-input-delta", messageId: "m1", toolCallId: "c1", toolName: "lookup", argumentsDelta: '{"word"' },
      { seq: 2, type: "tool-input-delta", messageId: "m1", toolCallId: "c1", argumentsDelta: ':"x"}' },
    ]);
    expect(fold.draft?.toolCalls).toEqual([{ toolCallId: "c1", toolName: "lookup", arguments: '{"word":"x"}' }]);
    fold = withStoredMessages(fold, [assistant("m1", null, [["c1", "lookup", '{"word":"x"}']])]);
    expect(fold.draft).toBeUndefined();
    expect(withStoredMessages(fold, [assistant("m1", null)])).toBe(fold);
  });
});
