import type { Sinks } from "@temporalio/workflow";
import type { DeferralEvent } from "./deferral-record.js";
import type { StepTraceEnd } from "./step-trace.js";

/** Worker-side listeners, reached through a sink so replays never deliver an event twice. */
export interface DurableAgentsSinks extends Sinks {
  durableAgents: {
    event(event: DeferralEvent): void;
    /** A step of a traced run ended: the worker closes its `invoke_agent` span. */
    stepEnded(end: StepTraceEnd): void;
  };
}
