import { afterEach, expect, it, vi } from "vitest";
import { startTemporal, TemporalUnavailableError } from "../../src/testing/index.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

it.each(["postgress", "sqlite", "POSTGRES", " postgres"])("refuses TEMPORAL_TARGET=%j, naming the choices, before starting anything", async (target) => {
  vi.stubEnv("TEMPORAL_TARGET", target);
  const err = await startTemporal({ local: true, log: () => undefined }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(TemporalUnavailableError);
  expect(err).toMatchObject({ code: "TEMPORAL_UNAVAILABLE", message: expect.stringContaining(`TEMPORAL_TARGET=${JSON.stringify(target)} is not one of dev, postgres`) });
});
