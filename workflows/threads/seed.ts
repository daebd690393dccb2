import { emptyUsage, type Usage } from "../../src/core/messages.js";
import type { AsyncCallState, InboxItem, ThreadFailure, ThreadInput, ThreadMessage, ThreadStatus } from "../../src/core/thread-contracts.js";
import type { ThreadRuntime } from "./runtime.js";
import { StreamLog } from "../shared/stream-log.js";

/** What a run of a thread starts from: what the previous run carried, or a fresh thread. */
export interface ThreadSeed {
  status: ThreadStatus;
  halted: boolean;
  messages: ThreadMessage[];
  inbox: InboxItem[];
  asyncCalls: Map<string, AsyncCallState>;
  held: Map<string, string>;
  turnSteps: number;
  turnStreamed: boolean;
  modelCalls: number;
  usage: Usage;
  lastError: ThreadFailure | undefined;
  generation: number;
  stream: StreamLog;
  createdAt: string;
  updatedAt: string;
  sentLength: number;
}

export function threadSeed(input: ThreadInput, runtime: ThreadRuntime): ThreadSeed {
  const carried = input.carried;
  if (carried) {
    return {
      status: carried.status,
      halted: carried.halted,
      messages: carried.messages,
      inbox: carried.inbox,
      asyncCalls: new Map(carried.asyncCalls.map((c) => [c.toolCallId, c])),
      held: new Map((carried.held ?? []).map((r) => [r.toolCallId, r.content])),
      turnSteps: carried.turnSteps,
      turnStreamed: carried.turnStreamed !== false,
      modelCalls: carried.modelCalls,
      usage: carried.usage,
      lastError: carried.lastError,
      generation: carried.generation + 1,
      stream: new StreamLog(carried.stream, carried.messages),
      createdAt: carried.createdAt,
      updatedAt: carried.updatedAt,
      // The worker's cache outlives the run, and a miss reads the transcript by query:
      // the first model call of a new run must not carry the whole thread.
      sentLength: carried.messages.length,
    };
  }
  const now = runtime.now();
  const messages: ThreadMessage[] = (input.messages ?? []).map((m) => ({ ...m, id: runtime.uuid(), createdAt: now }));
  const sentLength = messages.length;
  if (input.prompt) messages.push({ role: "user", content: input.prompt.content, id: input.prompt.id, createdAt: now });
  return {
    status: "idle",
    halted: false,
    messages,
    inbox: [],
    asyncCalls: new Map(),
    held: new Map(),
    turnSteps: 0,
    turnStreamed: true,
    modelCalls: 0,
    usage: emptyUsage(),
    lastError: undefined,
    generation: 0,
    stream: new StreamLog(),
    createdAt: now,
    updatedAt: now,
    sentLength,
  };
}
