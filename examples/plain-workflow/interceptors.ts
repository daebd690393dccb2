/**
 * Workflow interceptors of your own, bundled with the agent workflows and yours (see
 * examples/docs/plugin-worker.ts): this one logs each workflow as it starts, as a tracing
 * interceptor (OpenTelemetry's, say) would open its span.
 */
import { log, type WorkflowInterceptorsFactory } from "@temporalio/workflow";

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      async execute(input, next) {
        log.info("workflow started by the example's interceptor");
        return next(input);
      },
    },
  ],
});
