import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../src/index.js";
import { transcriptProblem } from "../../src/core/thread-transcript.js";

const call = (id: string) => ({ id, type: "function" as const, function: { name: "lookup", arguments: "{}" } });
const asks = (...ids: string[]): ChatMessage => ({ role: "assistant", content: null, tool_calls: ids.map(call) });
const answer = (id: string): ChatMessage => ({ role: "tool", tool_call_id: id, content: `r ${id}` });
const user = (content: string): ChatMessage => ({ role: "user", content });

// The thread side of the one transcript check (the run side: resumable-thread.test.ts).
describe("a thread's starting transcript", () => {
  it("may end with open calls, which its first turn runs", () => {
    expect(transcriptProblem([user("hi"), asks("a", "b"), answer("b")])).toBeUndefined();
    expect(transcriptProblem([])).toBeUndefined();
  });

  it.each([
    ["a message between calls and their results", [user("hi"), asks("a"), user("wait"), answer("a")], /messages\[2\]: tool call "a" has no result/],
    ["a result away from its batch", [user("hi"), asks("a"), user("?"), asks("b"), answer("b"), answer("a")], /messages\[2\]/],
    ["a result without a call", [user("hi"), answer("x")], /"x" has no tool call/],
    ["a result before its call", [user("hi"), answer("a"), asks("a")], /"a" comes before its call/],
    ["a call id used twice", [user("hi"), asks("a"), answer("a"), asks("a")], /appears twice/],
    ["two results for one call", [user("hi"), asks("a"), answer("a"), answer("a")], /two results/],
    ["a malformed message", [user("hi"), { role: "robot", content: "x" }], /messages\[1\]: message 1 is malformed: role must be/],
  ])("refuses %s", (_what, messages, problem) => {
    expect(transcriptProblem(messages)).toMatch(problem);
  });
});
