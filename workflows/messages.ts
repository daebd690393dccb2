import { defineQuery } from "@temporalio/workflow";
import type { ChatMessage } from "../src/model/messages.js";
import type { RunState } from "./run-state.js";

/** The run's live state (status, messages, turns, usage). */
export const runStateQuery = defineQuery<RunState>("durable-agents.runState");

/**
 * The first `length` messages of the thread. A model activity that has no cached copy
 * (another worker, a restart) reads the thread through this instead of its own input.
 */
export const threadQuery = defineQuery<ChatMessage[], [{ epoch: number; length: number }]>("durable-agents.thread");
