/**
 * Every use of a Temporal SDK interface that Temporal does not publish, in one place. The
 * rest of the package uses only what `@temporalio/*` documents: entry-point exports, public
 * members, `workflowService` calls, the protobuf types of `@temporalio/proto`.
 *
 * Each use says what it relies on and what happens where it is gone: none fails a user's
 * run, each degrades to a slower or noisier published path. `test/temporal-internals.test.ts`
 * runs each one against the installed SDK's real objects and fails when a Temporal release
 * changes what it relies on; the lowest Temporal version is the peer range in package.json.
 *
 * | use | relies on | without it |
 * |---|---|---|
 * | `onActivationCompleted` | `Worker`'s protected `nativeWorker.completeWorkflowActivation`, and its argument being a length-delimited `WorkflowActivationCompletion` | callers of `run()` in the worker's process read the park from the history: a gated call's start → parked 1.19–1.20× the bare workflow instead of 1.02–1.06× (the park bell, src/worker/stored-parks.ts; docs/architecture/temporal-mapping.md) |
 * | `replaceWorkerLogger` | `Worker`'s protected `logger`, read on each log call | a tool worker logs Temporal's "No workflows registered" warning |
 * | `loadDataConverter` | `@temporalio/common/lib/internal-non-workflow`'s `loadDataConverter`, and `Client` taking an already loaded converter as its `dataConverter` as it is | a missing export fails at import; a client that loads the converter again decodes with Temporal's payload converter, so a payload encrypted by a codec the client lacks reads as Temporal's bare `Unknown encoding` error instead of AI1046 |
 */
import type { DataConverter, LoadedDataConverter } from "@temporalio/common";
import { loadDataConverter as temporalLoadDataConverter } from "@temporalio/common/lib/internal-non-workflow/index.js";
import type { Logger } from "@temporalio/common";
import proto from "@temporalio/proto";
import type { Worker } from "@temporalio/worker";

const { WorkflowActivationCompletion } = proto.coresdk.workflow_completion;

type Complete = (completion: Buffer) => Promise<void>;

/**
 * Calls `completed(runId)` each time the server has answered the completion of a workflow
 * task of `worker` for that run (core resolves `completeWorkflowActivation` then; it answers
 * at once for an activation that does not end its task). `wanted()` is asked first, so
 * completions are decoded only while someone waits. Returns how to stop, or undefined when
 * this SDK's worker offers no such hook.
 */
export function onActivationCompleted(worker: Worker, wanted: () => boolean, completed: (runId: string) => void): (() => void) | undefined {
  const native = (worker as unknown as { nativeWorker?: { completeWorkflowActivation?: Complete } }).nativeWorker;
  const original = native?.completeWorkflowActivation;
  if (!native || typeof original !== "function") return undefined;
  native.completeWorkflowActivation = async (completion) => {
    const runId = wanted() ? runIdOf(completion) : undefined;
    await original.call(native, completion);
    // A completion core refused calls nothing back: it threw above.
    if (runId !== undefined) completed(runId);
  };
  return () => {
    native.completeWorkflowActivation = original;
  };
}

function runIdOf(completion: Buffer): string | undefined {
  try {
    return WorkflowActivationCompletion.decodeDelimited(completion).runId || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Replaces the logger `worker` logs its own messages with (its start, its shutdown, its
 * warnings) by `wrap(logger)`. Temporal offers no option for it: a worker's logger is the
 * runtime's, shared by every worker of the process. False when this SDK's worker has none.
 */
export function replaceWorkerLogger(worker: Worker, wrap: (logger: Logger) => Logger): boolean {
  const holder = worker as unknown as { logger?: Logger };
  const logger = holder.logger;
  if (!logger || typeof logger.warn !== "function") return false;
  holder.logger = wrap(logger);
  return true;
}

/**
 * The loaded form of a `DataConverter` (its payload converter, failure converter and codecs
 * as objects), which a `Client` takes as its `dataConverter` as it is: so a client decodes
 * with a payload converter that wraps Temporal's (src/client/data-converter.ts). Temporal
 * publishes no way to pass a payload converter object to a Node client: only a module path.
 */
export function loadDataConverter(dataConverter: DataConverter | undefined): LoadedDataConverter {
  return temporalLoadDataConverter(dataConverter);
}
