import { Client } from "@temporalio/client";
import { NativeConnection } from "@temporalio/worker";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { MetricReader } from "@opentelemetry/sdk-metrics";
import { AgentClient, defineAgent } from "durable-agents";
import { address } from "../docs-support/env.js";
const support = defineAgent({ id: "support", model: "gpt-4.1-mini", system: "You help customers." });
// Where an application sends them (OTLP, a vendor's exporter); here kept in memory to print.
const traceExporter = new InMemorySpanExporter();
const metricReader = new (class extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
})();
const connection = await NativeConnection.connect({ address });
// ---cut---
import { metrics } from "@opentelemetry/api";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { createAgentWorker, openaiModel } from "durable-agents/worker";

// before the worker starts (a NodeSDK from @opentelemetry/sdk-node does the same in one call)
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(traceExporter)] });
tracerProvider.register();
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [metricReader] }));

const worker = await createAgentWorker({
  connection, taskQueue: "agents", agents: [support], model: openaiModel(),
  captureContent: false, // the default: no message content on spans
});
// ---end---
await worker.runUntil(async () => {
  const agents = new AgentClient({ client: new Client({ connection }), taskQueue: "agents" });
  const result = await agents.run(support, { prompt: "Trace this answer" });
  console.log(result.status === "completed" ? `answer: ${result.text}` : result);
});
await tracerProvider.forceFlush();
console.log(`spans: ${[...new Set(traceExporter.getFinishedSpans().map((s) => s.name))].sort().join(", ")}`);
const { resourceMetrics } = await metricReader.collect();
console.log(`metrics: ${[...new Set(resourceMetrics.scopeMetrics.flatMap((s) => s.metrics.map((m) => m.descriptor.name)))].sort().join(", ")}`);
await connection.close();
