/**
 * Reminders and escalations that could never happen as written are refused when the tool is
 * defined (AI1001, naming the tool and what is wrong), whatever is passed; those that can are
 * taken. What the run does with them is in test/approval-reminders.test.ts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, InvalidDefinitionError, MAX_APPROVAL_REMINDERS, type ApprovalOptions } from "../../src/index.js";

const gated = (approval: unknown) =>
  defineTool({ name: "wire", description: "Wires money", input: z.object({}), needsApproval: true, approval: approval as ApprovalOptions, handler: () => "wired" });

const refusal = (approval: unknown) => {
  try {
    gated(approval);
  } catch (err) {
    if (InvalidDefinitionError.isInstance(err)) return err;
    throw err;
  }
  return undefined;
};

describe("approval.remind and approval.escalate", () => {
  it("take reminders before expiry and an escalation before it, to a list of requires", () => {
    expect(() => gated({ ttl: "72h", remind: ["24h", "1h"], escalate: { after: "48h", requires: ["payouts:cfo"], notify: () => undefined } })).not.toThrow();
    // Without a ttl the worker's default applies: reminders past it are not sent (docs/approvals.md).
    expect(() => gated({ remind: ["100h"], escalate: { after: "1h", requires: ["cfo"] } })).not.toThrow();
  });

  it.each([
    ["a reminder at or after the TTL", { ttl: "1h", remind: ["1h"] }, /approval.remind "1h" is not before the request's expiry/],
    ["a reminder after the TTL", { ttl: "1h", remind: ["30m", "2h"] }, /approval.remind "2h"/],
    ["a negative reminder", { ttl: "1h", remind: [-5] }, /approval.remind/],
    ["a reminder that is no duration", { remind: ["soon"] }, /approval.remind/],
    ["no reminders at all", { remind: [] }, /approval.remind must be a list of 1 to/],
    ["too many reminders", { remind: Array.from({ length: MAX_APPROVAL_REMINDERS + 1 }, (_, i) => `${i + 1}m`) }, /approval.remind must be a list/],
    ["reminders that are not a list", { remind: "1h" }, /approval.remind must be a list/],
    ["an escalation at the TTL", { ttl: "1h", escalate: { after: "1h", requires: ["cfo"] } }, /escalate.after must be shorter than approval.ttl/],
    ["an escalation with no delay", { escalate: { after: 0, requires: ["cfo"] } }, /approval.escalate.after/],
    ["an escalation to nobody", { escalate: { after: "1h", requires: [] } }, /escalate.requires must be a list/],
    ["an escalation to a blank requires", { escalate: { after: "1h", requires: ["  "] } }, /escalate.requires must be a list/],
    ["an escalation to a number", { escalate: { after: "1h", requires: [42] } }, /escalate.requires must be a list/],
    ["an escalation to a requires that is not a list", { escalate: { after: "1h", requires: "cfo" } }, /escalate.requires must be a list/],
    ["an escalation that is not an object", { escalate: "cfo" }, /approval.escalate must be/],
    ["an escalation's notify that is not a function", { escalate: { after: "1h", requires: ["cfo"], notify: "mail" } }, /escalate.notify must be a function/],
  ])("refuse %s with AI1001", (_what, approval, message) => {
    const err = refusal(approval);
    expect(err?.code).toBe("AI1001");
    expect(err?.message).toMatch(message);
    expect(err?.message).toContain('tool "wire"');
  });

  it("answer any value with a tool or AI1001, never another error", () => {
    fc.assert(
      fc.property(fc.record({ ttl: fc.constantFrom(undefined, "1h"), remind: fc.anything(), escalate: fc.oneof(fc.anything(), fc.record({ after: fc.anything(), requires: fc.anything() })) }, { requiredKeys: [] }), (approval) => {
        const err = refusal(approval);
        if (err) expect(err.code).toBe("AI1001");
      }),
    );
  });
});
