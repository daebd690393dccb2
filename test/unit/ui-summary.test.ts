/** The one-line texts the Temporal UI shows: bounded, single-line, and without content where asked. */
import { describe, expect, it } from "vitest";
import { staticSummaryOf } from "../../src/client/start-run.js";
import { modelSummary, oneLine, toolSummary } from "../../workflows/shared/activity-options.js";

describe("UI summaries", () => {
  it("name the agent and the prompt's first words on one line, or the agent alone", () => {
    expect(staticSummaryOf("payouts", "  Pay invoice 42\n\nto ACME\tbefore Friday, please, and tell me  ", "content")).toBe('agent payouts: "Pay invoice 42 to ACME before Friday, please, …"');
    expect(staticSummaryOf("payouts", "hi", "content")).toBe('agent payouts: "hi"');
    expect(staticSummaryOf("payouts", "", "content")).toBe('agent payouts: ""');
    expect(staticSummaryOf("payouts", "secret plans for the merger", "agent-only")).toBe("agent payouts");
    const long = staticSummaryOf("a".repeat(200), `${"x".repeat(500)} y`, "content");
    expect(long.length).toBeLessThanOrEqual(180);
    expect(long).not.toMatch(/\n/);
  });

  it("number model steps and name tools, bounded", () => {
    expect(modelSummary({ model: "gpt-4.1-mini" }, 3)).toBe("model gpt-4.1-mini · step 3");
    expect(modelSummary({}, undefined)).toBe("model (unnamed)");
    const call = (name: string, extra = {}) => ({ toolCall: { function: { name } }, ...extra });
    expect(toolSummary(call("lookupInvoice"))).toBe("tool lookupInvoice");
    expect(toolSummary(call("askApproval", { expired: {} }))).toBe("tool askApproval · onExpired");
    expect(toolSummary(call("askApproval", { denied: {} }))).toBe("tool askApproval · onDenied");
    expect(toolSummary(call("askHuman", { start: true }))).toBe("tool askHuman · async start");
    expect(toolSummary(call(`evil\nname${"z".repeat(200)}`)).length).toBeLessThanOrEqual(90);
    expect(oneLine(" a \n b ", 10)).toBe("a b");
  });
});
