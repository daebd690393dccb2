import type { Sinks } from "@temporalio/workflow";
import type { DeferralEvent, DeferredAck } from "./deferral-record.js";
import type { StepTraceEnd, StepTraceRequest } from "./step-trace.js";
import type { StreamBatch } from "./thread-contracts.js";

/** Worker-side listeners, reached through a sink so replays never deliver an event twice. */
export interface DurableAgentsSinks extends Sinks {
  durableAgents: {
    event(event: DeferralEvent): void;
    /** A traced run's step begins after a park or at a continue-as-new: the worker opens its `invoke_agent` span. */
    stepBegan(request: StepTraceRequest & { agentId: string }): void;
    /** A step of a traced run ended: the worker closes its `invoke_agent` span. */
    stepEnded(end: StepTraceEnd): void;
    /** A thread appended a stream entry: the worker publishes it on its stream transport. */
    stream(threadId: string, batch: StreamBatch): void;
    /** The workflow task being completed parks the workflow on a deferral: the worker tells callers in its process (the park bell). */
    parked(ack: DeferredAck): void;
  };
}
