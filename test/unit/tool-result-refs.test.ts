import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../src/core/messages.js";
import { fillToolResults, MIN_REFERENCED_RESULT_CHARS, referToolResults } from "../../src/core/tool-result-refs.js";

const long = (tag: string) => `${tag} `.repeat(MIN_REFERENCED_RESULT_CHARS);
const delta: ChatMessage[] = [
  { role: "tool", tool_call_id: "a", content: long("a") },
  { role: "tool", tool_call_id: "b", content: "short" },
  { role: "tool", tool_call_id: "c", content: long("c") },
  { role: "user", content: long("u") },
];

describe("tool results by reference", () => {
  it("names only long results that came from a tool activity, and fills them back exactly", () => {
    const { delta: sent, refs } = referToolResults(delta, new Set(["a", "b"]));
    expect(refs.map((r) => r.index)).toEqual([0]);
    expect(sent[0]).toEqual({ role: "tool", tool_call_id: "a", content: "" });
    expect(sent.slice(1)).toEqual(delta.slice(1));
    const held = new Map([["a", long("a")]]);
    expect(fillToolResults(sent, refs, (id) => held.get(id))).toEqual(delta);
  });

  it.each<[string, (id: string) => string | undefined, (refs: ReturnType<typeof referToolResults>["refs"]) => typeof refs]>([
    ["a result the worker never saw", () => undefined, (refs) => refs],
    ["a different result under the same call id (an attempt the run did not take)", () => long("other"), (refs) => refs],
    ["a reference to a message that is not a tool result", (id) => long(id), (refs) => [{ ...refs[0]!, index: 3 }]],
    ["a reference past the delta's end", (id) => long(id), (refs) => [{ ...refs[0]!, index: 99 }]],
  ])("gives up (the worker then reads the transcript) on %s", (_what, lookup, tamper) => {
    const { delta: sent, refs } = referToolResults(delta, new Set(["a", "c"]));
    expect(fillToolResults(sent, tamper(refs), lookup)).toBeUndefined();
  });
});
