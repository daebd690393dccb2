import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assertResumableThread, ThreadRewriteError } from "../../src/index.js";
import { MUTATIONS, mutate, threadArb } from "../fixtures/threads.js";

const defectOf = (fn: () => void): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    expect(ThreadRewriteError.isInstance(err)).toBe(true);
    expect((err as ThreadRewriteError).code).toBe("AI1008");
    return (err as ThreadRewriteError).fields.defect;
  }
};

const EXPECTED: Record<(typeof MUTATIONS)[number], RegExp> = {
  empty: /empty/,
  dropCall: /has no tool call/,
  dropResult: /has no result/,
  resultBeforeCall: /comes before its call/,
  duplicateId: /appears twice/,
  dropDeferred: /deferred tool call .* was dropped/,
};

describe("assertResumableThread", () => {
  it("accepts every valid generated thread", () => {
    fc.assert(
      fc.property(threadArb, (thread) => {
        expect(defectOf(() => assertResumableThread(thread.messages, thread.deferredToolCallId))).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it.each(MUTATIONS)("refuses the %s mutation with AI1008 naming the defect", (mutation) => {
    fc.assert(
      fc.property(threadArb, fc.nat(), (thread, pick) => {
        const defect = defectOf(() => assertResumableThread(mutate(thread, mutation, pick), thread.deferredToolCallId));
        expect(defect).toMatch(EXPECTED[mutation]);
      }),
      { numRuns: 200 },
    );
  });

  it("refuses a result for the deferred call itself: the resume payload is its result", () => {
    fc.assert(
      fc.property(threadArb, (thread) => {
        const answered = [...thread.messages, { role: "tool" as const, tool_call_id: thread.deferredToolCallId, content: "x" }];
        expect(defectOf(() => assertResumableThread(answered, thread.deferredToolCallId))).toMatch(/already has a result/);
        // Once the payload has landed (needs-compaction), the same thread is complete.
        expect(defectOf(() => assertResumableThread(answered))).toBeUndefined();
      }),
    );
  });
});
