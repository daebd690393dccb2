/**
 * Durations as Temporal reads them: the SDK parses `"72h"`-style options itself (Temporal
 * publishes no parser), so every spelling must mean what it means to Temporal's own
 * `msToNumber`, which the SDK's timers and timeouts go through.
 */
import { msToNumber } from "@temporalio/common";
import { describe, expect, it } from "vitest";
import { durationMs, parseDuration, timestampMs } from "../../src/core/duration.js";

const spellings = [
  "72h", "500ms", "500", "1.5 days", "2 weeks", "1y", "3 yrs", "10 Minutes", "45SEC", ".5s", "1.h", "-1h", "1 hour",
  "1msec", "2 millisecond", "7 D", "h", "", " 1h", "1h ", "1  h", "1 hours ago", "1e3", "0x10", "Infinity", "NaN", "1,5h", "🙂", "9".repeat(101),
];

describe("durations", () => {
  it.each(spellings)("%j means to us what it means to Temporal", (text) => {
    let temporal: number;
    try {
      temporal = msToNumber(text as never);
    } catch {
      temporal = NaN;
    }
    expect(parseDuration(text)).toEqual(temporal);
  });

  it("takes positive durations up to 100 years and refuses the rest with AI1001 naming the option", () => {
    expect(durationMs("72h", "ttl")).toBe(72 * 3_600_000);
    expect(durationMs(250, "ttl")).toBe(250);
    for (const bad of ["0s", "-1h", "101y", "soon", "", Infinity, NaN, null, {}] as never[]) {
      expect(() => durationMs(bad, "deferral.ttl")).toThrow(expect.objectContaining({ code: "AI1001", message: expect.stringContaining("deferral.ttl") }));
    }
  });

  it("reads protobuf timestamps whose seconds are numbers or Longs", () => {
    expect(timestampMs({ seconds: 2, nanos: 5_500_000 })).toBe(2005);
    expect(timestampMs({ seconds: { toNumber: () => 1_700_000_000 }, nanos: null })).toBe(1_700_000_000_000);
    expect(timestampMs(undefined)).toBeUndefined();
    expect(timestampMs({})).toBe(0);
  });
});
