import { NativeConnection } from "@temporalio/worker";
import type { AgentDefinition } from "durable-agents";
import type { MetricReader } from "@opentelemetry/sdk-metrics";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
declare const support: AgentDefinition;
declare const traceExporter: SpanExporter;
declare const metricReader: MetricReader;
// ---cut---
import { metrics } from "@opentelemetry/api";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { createAgentWorker, openaiModel } from "durable-agents/worker";

// before the worker starts (a NodeSDK from @opentelemetry/sdk-node does the same in one call)
new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(traceExporter)] }).register();
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [metricReader] }));

await createAgentWorker({
  connection: await NativeConnection.connect(), taskQueue: "agents", agents: [support], model: openaiModel(),
  captureContent: false, // the default: no message content on spans
});
