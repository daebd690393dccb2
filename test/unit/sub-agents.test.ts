/** `agents` on defineAgent: what cannot be a sub-agent is refused with AI1001, before any worker sees it. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool } from "../../src/index.js";
import { subAgentToolName } from "../../src/core/sub-agents.js";

const base = { model: "m", system: "s" };
const researcher = defineAgent({ id: "sub-researcher", ...base });

describe("agents on defineAgent", () => {
  it("keeps the sub-agents and the description an agent declares", () => {
    const lead = defineAgent({ id: "lead", ...base, agents: [researcher], description: "Leads" });
    expect(lead.agents).toEqual([researcher]);
    expect(lead.description).toBe("Leads");
    expect(defineAgent({ id: "solo", ...base }).agents).toBeUndefined();
  });

  it("names a sub-agent's tool after its id, in the characters tool names may hold", () => {
    expect(subAgentToolName("sub-researcher")).toBe("sub-researcher");
    expect(subAgentToolName("billing/refunds v2")).toBe("billing_refunds_v2");
    expect(subAgentToolName("x".repeat(100))).toHaveLength(64);
  });

  it("refuses what cannot be a sub-agent with AI1001", () => {
    const cases: Array<[string, unknown]> = [
      ["not an array", { id: "a", ...base, agents: "researcher" }],
      ["not from defineAgent", { id: "a", ...base, agents: [{ id: "fake" }] }],
      ["itself", { id: "sub-researcher", ...base, agents: [researcher] }],
      ["twice", { id: "a", ...base, agents: [researcher, researcher] }],
      ["a tool's name", { id: "a", ...base, tools: [defineTool({ name: "sub-researcher", description: "x", input: z.object({}), handler: () => "" })], agents: [researcher] }],
      ["one with authorize", { id: "a", ...base, agents: [defineAgent({ id: "guarded", ...base, authorize: () => true })] }],
      ["too many", { id: "a", ...base, agents: Array.from({ length: 17 }, (_, i) => defineAgent({ id: `s${i}`, ...base })) }],
      ["an empty description", { id: "a", ...base, description: "" }],
    ];
    for (const [what, options] of cases) {
      expect(() => defineAgent(options as never), what).toThrow(expect.objectContaining({ code: "AI1001" }));
    }
  });
});
