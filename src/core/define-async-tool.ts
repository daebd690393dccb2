import type { z } from "zod";
import { defineTool, type ToolCallContext, type ToolDefinition } from "./define-tool.js";
import { AsyncToolOutsideThreadError, InvalidDefinitionError } from "./errors/setup.js";
import type { ToolRetry } from "./tool-retry.js";

/** What an async tool's callback sees. */
export interface AsyncToolContext extends ToolCallContext {
  /** The thread the call belongs to: whoever answers names the call by it and `toolCallId` in `addToolResult`. */
  threadId: string;
  /**
   * The call's answer token: put it in the link you send, whoever answers passes it as
   * `answerToken` to `addToolResult` / `addToolError`. Without it an answer is refused
   * (RC5041), whatever the thread's `authorize` says: the token is what says the answerer
   * was asked. A secret like a password: send it only to who should answer. The same on
   * every attempt of the callback.
   */
  answerToken: string;
}

export interface AsyncToolOptions<I extends z.core.$ZodType> {
  /** Name the model calls the tool by: letters, digits, `_` and `-`, at most 64 characters. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** Schema of the arguments. Arguments the model gets wrong come back to it as a tool error. */
  input: I;
  /**
   * Starts the work and returns: notify a person or a system, which answers later with
   * `addToolResult` / `addToolError`, passing `ctx.answerToken`. Runs durably as an activity (at least once, with
   * `ctx.idempotencyKey`); if it keeps failing the model gets a tool error instead.
   */
  callback: (input: z.output<I>, ctx: AsyncToolContext) => Promise<void> | void;
  /** Retries of the callback (not of the answer). Default `true`: 3 attempts, exponential backoff. */
  retry?: ToolRetry;
  /** Runs the callback on its own task queue (see `createToolWorker`). */
  queue?: string;
}

/** A tool whose result arrives later, through the thread's `addToolResult` / `addToolError`. */
export interface AsyncToolDefinition<I extends z.core.$ZodType = z.core.$ZodType> extends ToolDefinition<I, never> {
  readonly mode: "async";
  callback: AsyncToolOptions<I>["callback"];
}

/**
 * Defines an async tool for threads: when the model calls it, `callback` runs (durably)
 * and the thread waits in `awaiting_tool_results` until the result is added, possibly
 * days later. In an agent run (which has no inbox) calling it fails the run with AI1026.
 */
export function defineAsyncTool<I extends z.core.$ZodType>(options: AsyncToolOptions<I>): AsyncToolDefinition<I> {
  if (typeof options?.callback !== "function") {
    throw new InvalidDefinitionError({ subject: `tool "${String(options?.name)}"`, problem: "callback must be a function" });
  }
  const base = defineTool<I, never>({
    name: options.name,
    description: options.description,
    input: options.input,
    retry: options.retry ?? true,
    ...(options.queue !== undefined ? { queue: options.queue } : {}),
    handler: (_input, ctx) => {
      throw new AsyncToolOutsideThreadError({ toolName: options.name, agentId: ctx.agentId });
    },
  });
  return { ...base, mode: "async", callback: options.callback };
}

/** Realm-safe: is this tool an async one. */
export function isAsyncTool(tool: ToolDefinition<any, any> | undefined): tool is AsyncToolDefinition {
  return (tool as { mode?: unknown } | undefined)?.mode === "async" && typeof (tool as AsyncToolDefinition).callback === "function";
}
