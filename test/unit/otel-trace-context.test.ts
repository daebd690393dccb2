/**
 * The trace context a run keeps in its state comes back to the worker in activity inputs,
 * which are never trusted: anything malformed is ignored (the call gets no parent from it)
 * rather than failing the call, and a well-formed one round-trips.
 */
import { describe, expect, it } from "vitest";
import { AgentTelemetry } from "../../src/otel/agent-telemetry.js";
import { fromTraceparent, toTraceparent } from "../../src/otel/traceparent.js";

const VALID = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

describe("traceparent", () => {
  it("round-trips a W3C traceparent", () => {
    const context = fromTraceparent(VALID)!;
    expect(context).toMatchObject({ traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", traceFlags: 1, isRemote: true });
    expect(toTraceparent(context)).toBe(VALID);
  });

  it.each([
    ["not a string", 42],
    ["empty", ""],
    ["another version", VALID.replace(/^00/, "ff")],
    ["an all-zero trace id", "00-00000000000000000000000000000000-b7ad6b7169203331-01"],
    ["an all-zero span id", "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01"],
    ["upper case", VALID.toUpperCase()],
    ["trailing junk", `${VALID}-extra`],
    ["oversized", `00-${"a".repeat(100_000)}-b7ad6b7169203331-01`],
    ["an object", { traceId: "0af7651916cd43dd8448eb211c80319c" }],
  ])("refuses %s", (_what, value) => {
    expect(fromTraceparent(value)).toBeUndefined();
  });

  it("runs a call whose trace fields are garbage, untraced, without failing it", async () => {
    const telemetry = new AgentTelemetry();
    const call = { host: "run" as const, agentId: "a", workflowId: "w", model: "m", attempt: 1, trace: { parent: "garbage", step: 7 as unknown as string } };
    const out = { message: { role: "assistant" as const, content: "ok" }, usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } };
    await expect(telemetry.chat(call, async () => out)).resolves.toBe(out);
    expect(telemetry.beginStep("a", { host: "run", workflowId: "w", step: "s", parent: "junk", follows: { step: "nope", traceparent: "junk" } })).toBeUndefined();
    expect(() => telemetry.endStep({ step: "never-opened", outcome: "completed" })).not.toThrow();
  });
});
