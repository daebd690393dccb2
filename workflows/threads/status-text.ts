import type { AsyncCallState, ThreadFailure, ThreadMessage, ThreadPrepared, ThreadStatus } from "../../src/core/thread-contracts.js";
import { ownEntry } from "../../src/core/own.js";
import { openToolCalls } from "../../src/core/thread-transcript.js";
import { oneLine } from "../shared/activity-options.js";

/** The part of a thread's state its status line reads. */
export interface StatusView {
  readonly status: ThreadStatus;
  readonly turnSteps: number;
  readonly messages: readonly ThreadMessage[];
  readonly asyncCalls: ReadonlyMap<string, AsyncCallState>;
  readonly prepared: ThreadPrepared | undefined;
  readonly lastError: ThreadFailure | undefined;
}

/**
 * The status as the Temporal UI's current details show it. Tool names and error codes
 * only: no message content, which a codec would otherwise be the only thing protecting.
 */
export function statusText(thread: StatusView): string {
  let text: string;
  switch (thread.status) {
    case "idle":
      text = "idle";
      break;
    case "streaming":
      text = `running turn · step ${thread.turnSteps + 1}`;
      break;
    case "awaiting_tool_results": {
      const names = (async: boolean) =>
        openToolCalls(thread.messages)
          .filter((call) => (thread.asyncCalls.has(call.id) || (thread.prepared ? ownEntry(thread.prepared.tools, call.function.name)?.async === true : false)) === async)
          .map((call) => call.function.name);
      const running = names(false);
      const waiting = names(true);
      text = [running.length ? `running tool ${running.join(", ")}` : "", waiting.length ? `awaiting async tool ${waiting.join(", ")}` : ""].filter(Boolean).join("; ") || "awaiting tool results";
      break;
    }
    case "completed":
      text = "idle (last turn completed)";
      break;
    case "failed":
      text = `failed${thread.lastError?.code ? ` (${thread.lastError.code})` : ""}: halted until resumed or sent a new message`;
      break;
    case "stopped":
      text = "stopped";
      break;
  }
  // Tool names come from the model: bounded, since the field is meant to be one line.
  return oneLine(text, 200);
}
