import { Context } from "@temporalio/activity";
import type { StepTask } from "../src/core/step-wire.js";

/** The task the current activity runs in, which fills in what its scheduled input left out (`step-wire.ts`). */
export function currentStepTask(): StepTask {
  const { workflowExecution, taskQueue } = Context.current().info;
  return { workflowId: workflowExecution?.workflowId ?? "", runId: workflowExecution?.runId ?? "", taskQueue };
}
