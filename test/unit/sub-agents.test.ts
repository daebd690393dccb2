/** `agents` on defineAgent: what cannot be a sub-agent is refused with AI1001, before any worker sees it. */
import { readFileSync } from "node:fs";
import ts from "typescript";
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

/** The TSDoc of `AgentOptions.<name>`, as an editor shows it. */
function optionDoc(name: string): string {
  const path = new URL("../../src/core/define-agent.ts", import.meta.url);
  const source = ts.createSourceFile(path.pathname, readFileSync(path, "utf8"), ts.ScriptTarget.ES2022, true);
  let doc = "";
  source.forEachChild((node) => {
    if (!ts.isInterfaceDeclaration(node) || node.name.text !== "AgentOptions") return;
    const member = node.members.find((m) => m.name !== undefined && ts.isIdentifier(m.name) && m.name.text === name);
    doc = (member ? ts.getJSDocCommentsAndTags(member) : []).map((d) => ts.getTextOfJSDocComment(d.comment) ?? "").join("\n");
  });
  return doc;
}

describe("the agents option's TSDoc", () => {
  // What test/sub-agents.test.ts shows sub-agents doing, told where a user reads first.
  it("says a sub-agent may defer and have tools that need approval, and what resumes it", () => {
    const doc = optionDoc("agents");
    expect(doc).toMatch(/may defer/);
    expect(doc).toMatch(/tools that need approval/);
    expect(doc).not.toMatch(/may not defer/);
    expect(doc).not.toMatch(/nor have tools that\s+need approval/);
  });
});
