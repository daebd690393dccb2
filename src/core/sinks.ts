import type { Sinks } from "@temporalio/workflow";
import type { DeferralEvent } from "./deferral-record.js";

/** Worker-side listeners, reached through a sink so replays never deliver an event twice. */
export interface DurableAgentsSinks extends Sinks {
  durableAgents: {
    event(event: DeferralEvent): void;
  };
}
