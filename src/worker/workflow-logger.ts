import { ApplicationFailureCategory, type LogMetadata } from "@temporalio/common";
import { Runtime, type InjectedSink } from "@temporalio/worker";
import type { WorkflowInfo } from "@temporalio/workflow";
import { codeInfo, isErrorCode } from "../core/errors/codes.js";

type Level = "trace" | "debug" | "info" | "warn" | "error";
/** Temporal's workflow logger sink (`WorkflowLogger`, which `@temporalio/workflow` does not export by name). */
type WorkflowLogSink = InjectedSink<Record<Level, (message: string, attrs?: LogMetadata) => void>>;

/**
 * The logger sink of the worker's workflows, as Temporal's own but for one line. Temporal
 * logs an activity that fails with a `BENIGN` failure at debug, and a workflow that does
 * at warning level with its stack ("Workflow failed"): a run whose deferral expired
 * (RC5047), was denied or was cancelled is an outcome its callers are told of, not a fault
 * for the worker's log. Those are logged at debug here, as Temporal does for activities;
 * every other line goes where Temporal sends it: the sink the worker was given
 * (`defaultWorkerLogger`), or `Runtime.logger`.
 */
export function workflowLoggerSink(taskQueue: string, given: WorkflowLogSink | undefined): WorkflowLogSink {
  const forward = (level: Level) => ({
    fn: (info: WorkflowInfo, message: string, attrs?: LogMetadata) => {
      if (given) return given[level].fn(info, message, attrs);
      // What Temporal's own sink adds: the component, then the workflow's attributes.
      Runtime.instance().logger[level](message, { sdkComponent: "workflow", taskQueue, ...attrs });
    },
    ...(given?.[level].callDuringReplay ? { callDuringReplay: true } : {}),
  });
  const debug = forward("debug");
  const warn = forward("warn");
  return {
    trace: forward("trace"),
    debug,
    info: forward("info"),
    warn: {
      ...warn,
      fn: (info: WorkflowInfo, message: string, attrs?: LogMetadata) => (message === "Workflow failed" && isBenignFailure(attrs?.error) ? debug.fn(info, message, attrs) : warn.fn(info, message, attrs)),
    },
    error: forward("error"),
  };
}

/**
 * A failure Temporal would treat as benign. Read from what crossed from the workflow's
 * thread: a structured clone keeps an error's message but not its other fields, so an SDK
 * failure is also told by the code its message starts with.
 */
function isBenignFailure(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { category, message } = error as { category?: unknown; message?: unknown };
  if (category === ApplicationFailureCategory.BENIGN) return true;
  const code = typeof message === "string" ? /^\[([A-Z]{2}\d{4})\] /.exec(message)?.[1] : undefined;
  return isErrorCode(code) && codeInfo(code).benign;
}
