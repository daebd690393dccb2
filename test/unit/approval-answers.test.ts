/**
 * What a policy and a response may be, judged for any value: a `needsApproval` policy's
 * answer is allow, ask or a bounded denial, or AI1035 (never anything else, whatever it
 * returns or throws); a `{ respond }` decision passes the workflow's check exactly when the
 * tool's own zod `resultSchema` accepts it (as JSON Schema, the way the worker records it).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { policyAnswer } from "../../activities/approval-gate.js";
import { jsonSchemaOf } from "../../activities/agent-registry.js";
import { decisionIssues, MAX_DECISION_TEXT, type ApprovalCall } from "../../src/core/approval.js";
import { ApprovalPolicyFailedError, defineTool, type ApprovalContext, type JsonObject } from "../../src/index.js";
import type { StandardSchema } from "../../src/core/schema.js";

const ctx: ApprovalContext = { agentId: "a", toolName: "refund", toolCallId: "c1", principal: { id: "sam" }, host: "run", runId: "r1" };
const withPolicy = (policy: () => unknown) =>
  defineTool({ name: "refund", description: "Refunds", input: z.object({}), needsApproval: policy as never, handler: () => "refunded" });

describe("a needsApproval policy's answer", () => {
  it("is allow, ask or a denial with a bounded reason, or AI1035 naming the tool and call, for any value it returns or throws", async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.anything(), fc.constantFrom("allow", "ask", true, false), fc.record({ deny: fc.oneof(fc.string(), fc.anything()) })), fc.boolean(), async (value, throws) => {
        const tool = withPolicy(() => (throws ? Promise.reject(value) : value));
        const answer = await policyAnswer(tool, {}, ctx).catch((err: unknown) => err);
        if (ApprovalPolicyFailedError.isInstance(answer)) {
          expect(answer.fields).toMatchObject({ toolName: "refund", toolCallId: "c1" });
          expect(answer.message).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
          return;
        }
        expect(throws).toBe(false);
        const kind = (answer as { kind: string }).kind;
        if (value === "allow" || value === false) expect(kind).toBe("allow");
        else if (value === "ask" || value === true) expect(kind).toBe("ask");
        else {
          expect(answer).toMatchObject({ kind: "deny", reason: expect.any(String) });
          expect((answer as { reason: string }).reason.length).toBeLessThanOrEqual(MAX_DECISION_TEXT);
        }
      }),
    );
  });

  it("is AI1035 for an answer that throws when read", async () => {
    const gotcha = () => {
      throw new Error("gotcha");
    };
    await expect(policyAnswer(withPolicy(() => new Proxy({}, { getOwnPropertyDescriptor: gotcha })), {}, ctx)).rejects.toMatchObject({ code: "AI1035", message: expect.stringContaining("cannot be read") });
    // Awaiting it reads `then`: that throw is the policy's own.
    await expect(policyAnswer(withPolicy(() => new Proxy({}, { get: gotcha })), {}, ctx)).rejects.toMatchObject({ code: "AI1035", message: expect.stringContaining("threw: gotcha") });
  });
});

describe("a { respond } decision", () => {
  const Result = z.object({ status: z.enum(["sent", "held"]), reference: z.string().min(1), amount: z.number().int().optional() });
  const call: ApprovalCall = { toolCallId: "c1", toolName: "sendPayout", arguments: "{}", resultSchema: jsonSchemaOf(Result as unknown as StandardSchema) as JsonObject };
  const payload = (respond: unknown) => ({ decisions: [{ toolCallId: "c1", respond }] });

  it("is taken exactly when the tool's resultSchema accepts it, for any JSON value", () => {
    const near = fc.record({ status: fc.constantFrom("sent", "held", "lost", 3), reference: fc.oneof(fc.string(), fc.integer()), amount: fc.oneof(fc.integer(), fc.double(), fc.string()) }, { requiredKeys: [] });
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), near), (value) => {
        const issues = decisionIssues([call], payload(value));
        expect(issues === undefined, JSON.stringify({ value, issues })).toBe(value !== null && Result.safeParse(value).success);
      }),
      { numRuns: 500 },
    );
  });

  it("takes any plain JSON but null for a tool without a resultSchema, and never beside approved, input or reason", () => {
    const { resultSchema: _none, ...free } = call;
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(decisionIssues([free], payload(value)) === undefined, JSON.stringify(value)).toBe(value !== null);
      }),
    );
    for (const extra of [{ approved: true }, { approved: false }, { input: {} }, { reason: "x" }]) {
      expect(decisionIssues([free], { decisions: [{ toolCallId: "c1", respond: "ok", ...extra }] })).toEqual([expect.stringContaining("takes no approved, input or reason")]);
    }
    expect(decisionIssues([free], { decisions: [{ toolCallId: "c1", respond: "ok", note: "n".repeat(MAX_DECISION_TEXT + 1) }] })).toEqual([expect.stringContaining("note")]);
  });
});
