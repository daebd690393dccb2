import { proxySinks, workflowInfo } from "@temporalio/workflow";
import type { DurableAgentsSinks } from "../../src/core/sinks.js";

type AgentSinks = DurableAgentsSinks["durableAgents"];

/** What a run's or a thread's tracing reports: its steps' beginnings and ends. */
export type StepSink = Pick<AgentSinks, "stepBegan" | "stepEnded">;

/**
 * The worker's listeners (`src/worker/plugin.ts`), called only while the workflow makes new
 * history. The worker drops their calls during replay anyway (each is `callDuringReplay:
 * false`); not making them at all keeps a replay without the plugin (`Worker.runReplayHistories`
 * on a bundle, as a replay test in CI does) from logging "unregistered external sink" for
 * every step and stream batch of every history.
 */
export function agentSinks(): AgentSinks {
  const sinks = proxySinks<DurableAgentsSinks>().durableAgents;
  const live =
    <A extends unknown[]>(call: (...args: A) => void) =>
    (...args: A): void => {
      if (!workflowInfo().unsafe.isReplayingHistoryEvents) call(...args);
    };
  return { event: live(sinks.event), stepBegan: live(sinks.stepBegan), stepEnded: live(sinks.stepEnded), stream: live(sinks.stream), parked: live(sinks.parked) };
}
