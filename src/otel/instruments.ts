import { metrics, trace, type Counter, type Histogram, type Meter, type Tracer, type UpDownCounter } from "@opentelemetry/api";

const SCOPE = "durable-agents";

/** The SDK's tracer; a no-op (and nearly free) until the application registers an OpenTelemetry SDK. */
export function tracer(): Tracer {
  return trace.getTracer(SCOPE);
}

export interface Instruments {
  /** `gen_ai.client.token.usage`: tokens per model call, by agent, model and token type. */
  tokenUsage: Histogram;
  /** `gen_ai.client.operation.duration`: seconds per model call (`chat`) and tool call (`execute_tool`). */
  duration: Histogram;
  /** Deferrals waiting now: up on a park, down when one is resumed, expires or is denied. */
  parked: UpDownCounter;
  resumed: Counter;
  expired: Counter;
  denied: Counter;
}

// The metrics API has no proxy provider: the meter is looked up each time, so a provider
// registered after the worker started is used, and each meter's instruments are made once.
const made = new WeakMap<Meter, Instruments>();

export function instruments(): Instruments {
  const meter = metrics.getMeter(SCOPE);
  let found = made.get(meter);
  if (!found) {
    found = {
      tokenUsage: meter.createHistogram("gen_ai.client.token.usage", {
        description: "Tokens used per model call",
        unit: "{token}",
        advice: { explicitBucketBoundaries: [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864] },
      }),
      duration: meter.createHistogram("gen_ai.client.operation.duration", {
        description: "Duration of model calls and tool calls",
        unit: "s",
        advice: { explicitBucketBoundaries: [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92] },
      }),
      parked: meter.createUpDownCounter("durable_agents.deferrals.parked", { description: "Deferrals waiting for a resume", unit: "{deferral}" }),
      resumed: meter.createCounter("durable_agents.deferrals.resumed", { description: "Deferrals resumed", unit: "{deferral}" }),
      expired: meter.createCounter("durable_agents.deferrals.expired", { description: "Deferrals whose TTL ran out", unit: "{deferral}" }),
      denied: meter.createCounter("durable_agents.deferrals.denied", { description: "Deferrals denied while waiting", unit: "{deferral}" }),
    };
    made.set(meter, found);
  }
  return found;
}
