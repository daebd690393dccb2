/**
 * A run's first model call is scheduled before anything described the agent (issue 49): as
 * the starting client saw the definition, else as the defaults schedule model calls. When
 * that is not how the agent's worker schedules them, the call is made again (one activity
 * more), so the defaults here must be the defaults the agent and the worker take.
 */
import { expect, it } from "vitest";
import { defineAgent } from "../../src/index.js";
import { DEFAULT_MODEL_CALLS } from "../../src/core/contracts.js";
import { firstCallPlanOf } from "../../src/core/run-state.js";
import { resolveThreadWorkerOptions } from "../../src/worker/thread-options.js";

const base = { id: "plan", model: "gpt-4.1-mini", system: "You plan.", tools: [] };

it("are the timeouts an agent and the attempts a worker take when they set none", () => {
  expect(defineAgent(base).timeouts).toEqual({ callMs: DEFAULT_MODEL_CALLS.timeouts.startToCloseMs, heartbeatMs: DEFAULT_MODEL_CALLS.timeouts.heartbeatMs });
  expect(resolveThreadWorkerOptions().modelMaxAttempts).toBe(DEFAULT_MODEL_CALLS.modelMaxAttempts);
});

it("carries the agent's model (the call's name in the Temporal UI), and its own locality and timeouts where not the defaults", () => {
  expect(firstCallPlanOf(defineAgent(base))).toEqual({ model: "gpt-4.1-mini" });
  expect(firstCallPlanOf(defineAgent({ ...base, modelCalls: "local" }))).toEqual({ model: "gpt-4.1-mini", local: true });
  expect(firstCallPlanOf(defineAgent({ ...base, timeouts: { call: "2m" } }))).toEqual({ model: "gpt-4.1-mini", timeouts: { startToCloseMs: 120_000, heartbeatMs: 30_000 } });
});
