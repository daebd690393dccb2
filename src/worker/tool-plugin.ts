import type { Logger } from "@temporalio/common";
import type { Worker } from "@temporalio/worker";
import { replaceWorkerLogger } from "../temporal/internals.js";
import { DurableAgentsActivitiesPlugin } from "./plugin.js";

/**
 * The plugin of a tool worker (`createToolWorker`): the tool activities and the heartbeat
 * throttle, and no workflows, by design.
 */
export class ToolWorkerPlugin extends DurableAgentsActivitiesPlugin {
  constructor(activities: object, stopLatencyMs: number) {
    super("durable-agents-tools", activities, stopLatencyMs);
  }

  override runWorker(worker: Worker, next: (w: Worker) => Promise<void>): Promise<void> {
    withoutNoWorkflowsWarning(worker);
    return super.runWorker(worker, next);
  }
}

/**
 * A worker without workflows warns "No workflows registered" as it starts: right for a
 * worker that forgot its workflows, noise for a tool worker, which only ever polls its
 * queue's activities. Temporal offers no option to declare that, so this worker's logger
 * drops that one warning (src/temporal/internals.ts). Should Temporal rename either, the
 * warning simply shows again.
 */
function withoutNoWorkflowsWarning(worker: Worker): void {
  replaceWorkerLogger(worker, (logger) =>
    Object.create(logger, {
      warn: {
        value: (message: string, meta?: Record<string, unknown>) => {
          if (!message.startsWith("No workflows registered")) logger.warn(message, meta);
        },
      },
    }) as Logger,
  );
}
