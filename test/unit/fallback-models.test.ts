/**
 * `fallbackModels` as `defineAgent` takes it: names in order, checked where the agent is
 * defined (AI1001), never part of the fingerprint.
 */
import { describe, expect, it } from "vitest";
import { defineAgent } from "../../src/index.js";

const base = { id: "fallbacks", model: "gpt-4.1", system: "You answer." };

describe("fallbackModels", () => {
  it("keeps the names in order, and a copy: changing the array afterwards changes nothing", () => {
    const list = ["gpt-4.1-mini", "claude-sonnet"];
    const agent = defineAgent({ ...base, fallbackModels: list });
    list.push("other");
    expect(agent.fallbackModels).toEqual(["gpt-4.1-mini", "claude-sonnet"]);
    expect(defineAgent({ ...base, fallbackModels: [] }).fallbackModels).toBeUndefined();
    expect(defineAgent(base).fallbackModels).toBeUndefined();
  });

  it.each([
    ["not an array", "gpt-4.1-mini", /array of non-empty model names/],
    ["an empty name", ["gpt-4.1-mini", ""], /array of non-empty model names/],
    ["a blank name", ["  "], /array of non-empty model names/],
    ["a number", [4], /array of non-empty model names/],
    ["the agent's own model", ["gpt-4.1"], /must not repeat/],
    ["a name twice", ["a", "b", "a"], /must not repeat/],
    ["more than eight", Array.from({ length: 9 }, (_, i) => `m${i}`), /at most 8/],
  ])("refuses %s with AI1001", (_, fallbackModels, message) => {
    expect(() => defineAgent({ ...base, fallbackModels: fallbackModels as string[] })).toThrow(expect.objectContaining({ code: "AI1001", message: expect.stringMatching(message) }));
  });
});
