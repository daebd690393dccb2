/**
 * Where compaction cuts a thread's transcript (src/core/compaction.ts) and what
 * `defineAgent({ compaction })` accepts: the rules the thread's workflow applies.
 */
import { describe, expect, it } from "vitest";
import { compactionCut, compactionDue, summaryMessage, withArchivedSpan, type ArchivedSpan } from "../../src/core/compaction.js";
import type { ChatMessage } from "../../src/core/messages.js";
import { defineAgent } from "../../src/index.js";
import { asStreamUpdate, emptyFold, foldStreamUpdates } from "../../src/core/stream-fold.js";

const user = (content: string): ChatMessage => ({ role: "user", content });
const answer = (content: string): ChatMessage => ({ role: "assistant", content });
const calls = (...ids: string[]): ChatMessage => ({ role: "assistant", content: null, tool_calls: ids.map((id) => ({ id, type: "function", function: { name: "lookup", arguments: "{}" } })) });
const result = (id: string): ChatMessage => ({ role: "tool", tool_call_id: id, content: "r" });

describe("compactionCut", () => {
  it("keeps the newest turns, cutting where a turn starts", () => {
    const t = [user("1"), answer("a"), user("2"), answer("b"), user("3")];
    expect(compactionCut(t, 1)).toBe(4);
    expect(compactionCut(t, 2)).toBe(2);
    // Too few turns: nothing to compact.
    expect(compactionCut(t, 3)).toBe(0);
  });

  it("compacts an old turn that is only a call and its results whole, never between them", () => {
    const t = [user("1"), calls("c1", "c2"), result("c1"), result("c2"), user("2"), calls("c3"), result("c3")];
    expect(compactionCut(t, 1)).toBe(4);
  });

  it("moves the cut to an older turn boundary while the part before it holds a call without its result", () => {
    // The call of turn 2 is unanswered (an approval or an async result it still waits on): turn 2 stays.
    const t = [user("1"), answer("a"), user("2"), calls("c1"), user("3"), answer("b"), user("4")];
    expect(compactionCut(t, 1)).toBe(2);
    // And none at all when the oldest turn is the one still waiting.
    expect(compactionCut([user("1"), calls("c1"), user("2")], 1)).toBe(0);
  });

  it("leaves a call that is still busy (async, held, running) out of the summary", () => {
    const t = [user("1"), calls("c1"), result("c1"), user("2"), answer("b"), user("3")];
    expect(compactionCut(t, 1, new Set(["c1"]))).toBe(0);
    expect(compactionCut(t, 1, new Set(["other"]))).toBe(5);
  });

  it("writes the summary as the assistant's notes, never as a system message", () => {
    expect(summaryMessage("notes")).toEqual({ role: "assistant", content: "Summary of the earlier conversation:\nnotes" });
  });

  it("does not compact a previous summary alone", () => {
    const t = [summaryMessage("before"), user("2"), answer("b"), user("3")];
    expect(compactionCut(t, 1)).toBe(3);
    expect(compactionCut([summaryMessage("before"), user("3")], 1)).toBe(0);
  });

  it("is due at the room share or at the token budget", () => {
    expect(compactionDue({ keepTurns: 1, atBytes: 1000 }, 999)).toBe(false);
    expect(compactionDue({ keepTurns: 1, atBytes: 1000 }, 1000)).toBe(true);
    expect(compactionDue({ keepTurns: 1, atBytes: 1000, maxInputTokens: 100 }, 400)).toBe(true);
    expect(compactionDue({ keepTurns: 1, atBytes: 1000, maxInputTokens: 100 }, 396)).toBe(false);
  });
});

describe("defineAgent({ compaction })", () => {
  const agent = (compaction: unknown) => defineAgent({ id: "c", model: "m", system: "s", compaction: compaction as never });

  it("fills in the defaults", () => {
    expect(agent({ keepTurns: 3 }).compaction).toEqual({ keepTurns: 3, atRoom: 0.75, summarizer: {} });
    expect(agent({ keepTurns: 1, maxInputTokens: 8000, atRoom: 0.5, summarizer: { model: "small", system: "Summarize." } }).compaction).toEqual({
      keepTurns: 1,
      atRoom: 0.5,
      maxInputTokens: 8000,
      summarizer: { model: "small", system: "Summarize." },
    });
    expect(defineAgent({ id: "c", model: "m", system: "s" }).compaction).toBeUndefined();
  });

  it.each([
    [{ keepTurns: 0 }, "keepTurns"],
    [{ keepTurns: 1.5 }, "keepTurns"],
    [{}, "keepTurns"],
    [{ keepTurns: 1, atRoom: 0.95 }, "atRoom"],
    [{ keepTurns: 1, atRoom: 0 }, "atRoom"],
    [{ keepTurns: 1, maxInputTokens: -1 }, "maxInputTokens"],
    [{ keepTurns: 1, summarizer: { model: "" } }, "summarizer.model"],
    [{ keepTurns: 1, summarizer: { system: " " } }, "summarizer.system"],
    [null, "compaction"],
  ])("refuses %j with AI1001 naming %s", (compaction, field) => {
    expect(() => agent(compaction)).toThrow(expect.objectContaining({ code: "AI1001", message: expect.stringContaining(field) }));
  });
});

describe("the compacted stream entry on the wire", () => {
  const entry = { seq: 9, type: "compacted", summaryId: "s1", compactedMessages: 4, keptTurns: 1, bytesBefore: 900, bytesAfter: 300 };

  it("is read from a cross-process transport's batch, and changes nothing a reader shows", () => {
    expect(asStreamUpdate(entry)).toEqual(entry);
    const fold = foldStreamUpdates(emptyFold(), [asStreamUpdate(entry)!]);
    expect(fold).toEqual({ ...emptyFold(), lastSeq: 9 });
  });

  it.each([
    ["no summary id", { ...entry, summaryId: 7 }],
    ["a negative count", { ...entry, compactedMessages: -1 }],
    ["a fractional size", { ...entry, bytesAfter: 1.5 }],
    ["a missing size", { ...entry, bytesBefore: undefined }],
    ["no seq", { ...entry, seq: 0 }],
  ])("is refused with %s", (_what, value) => {
    expect(asStreamUpdate(value)).toBeUndefined();
  });
});

describe("the archive index", () => {
  it("stays within its bound, merging the oldest spans into one that reads as gone, and keeps every offset", () => {
    let archive: ArchivedSpan[] = [];
    for (let i = 0; i < 7; i++) archive = withArchivedSpan(archive, { runId: `r${i}`, activityId: `a${i}`, from: i === 0 ? 0 : 1, count: 10 + i }, 4);
    expect(archive).toHaveLength(4);
    expect(archive[0]).toEqual({ runId: "", activityId: "", from: 0, count: 10 + 11 + 12 + 13 });
    expect(archive.slice(1).map((s) => s.runId)).toEqual(["r4", "r5", "r6"]);
    expect(archive.reduce((n, s) => n + s.count, 0)).toBe([10, 11, 12, 13, 14, 15, 16].reduce((a, b) => a + b));
  });
});
