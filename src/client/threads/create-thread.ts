import { randomUUID } from "node:crypto";
import { WorkflowExecutionAlreadyStartedError } from "@temporalio/client";
import type { agentThread } from "../../../workflows/threads/agent-thread.js";
import { InvalidDefinitionError } from "../../core/errors/setup.js";
import { ThreadAlreadyExistsError } from "../../core/errors/threads.js";
import { ThreadMessageInvalidError } from "../../core/errors/threads.js";
import { TranscriptFullError } from "../../core/errors/limits.js";
import { plainJsonProblem } from "../../core/json-check.js";
import { assertPayloadFits, jsonBytes, MAX_PRINCIPAL_BYTES, PRINCIPAL_HINT } from "../../core/payload-size.js";
import { AgentIdKey } from "../../core/search-attributes.js";
import { STREAM_KEY_MEMO } from "../../core/stream-key.js";
import { randomKey } from "../../stream/direct-proof.js";
import { AGENT_THREAD_VERSION, type ThreadInput } from "../../core/thread-contracts.js";
import { transcriptProblem } from "../../core/thread-transcript.js";
import { THREAD_TRANSCRIPT_BYTES } from "../../core/transcript-budget.js";
import { unvouchedDefect } from "../../core/transcript-trust.js";
import { agentIdOf, newMessageId, type ThreadAccess } from "./thread-access.js";
import type { CreateThreadOptions } from "./thread-types.js";

/** `ThreadsClient.createThread`: checks the options, asks `thread.create`, then starts the thread's workflow. */
export async function createThread(access: ThreadAccess, options: CreateThreadOptions): Promise<{ threadId: string; messageId?: string }> {
  const agentId = agentIdOf(options.agent) ?? access.agentId;
  if (!agentId) throw new InvalidDefinitionError({ subject: "createThread", problem: "name the agent (createThread({ agent }) or new ThreadsClient({ agent }))" });
  const threadId = options.threadId ?? `thread-${randomUUID()}`;
  if (options.prompt !== undefined && typeof options.prompt !== "string") {
    throw new ThreadMessageInvalidError({ threadId, problem: "prompt must be a string" });
  }
  if (options.messages !== undefined) {
    const problem = transcriptProblem(options.messages) ?? (options.trustTranscript === true ? undefined : unvouchedDefect(options.messages)?.defect);
    if (problem) throw new ThreadMessageInvalidError({ threadId, problem });
  }
  const principalProblem = options.principal === undefined ? undefined : plainJsonProblem(options.principal);
  if (principalProblem) throw new InvalidDefinitionError({ subject: "createThread", problem: `principal is not plain JSON at ${principalProblem.path}` });
  if (options.principal !== undefined) assertPayloadFits(options.principal, "The thread's principal", { limitBytes: MAX_PRINCIPAL_BYTES, hint: PRINCIPAL_HINT });
  await access.ask({
    operation: "thread.create",
    principal: options.principal,
    threadId,
    agentId,
    seeded: options.messages !== undefined && options.messages.length > 0,
    trustTranscript: options.trustTranscript === true,
  });
  const messageId = options.prompt !== undefined ? newMessageId() : undefined;
  const input: ThreadInput = {
    version: AGENT_THREAD_VERSION,
    agentId,
    ...(options.principal ? { principal: options.principal } : {}),
    ...(options.messages ? { messages: options.messages } : {}),
    ...(messageId !== undefined ? { prompt: { id: messageId, content: options.prompt! } } : {}),
    ...(options.autoStart !== undefined ? { autoStart: options.autoStart } : {}),
    ...(options.stream !== undefined ? { stream: options.stream } : {}),
    ...(options.maxHistoryEvents !== undefined ? { maxHistoryEvents: options.maxHistoryEvents } : {}),
  };
  assertPayloadFits(input, "The new thread's prompt and transcript");
  assertSeedFits(threadId, input);
  try {
    await access.client.workflow.start<typeof agentThread>("agentThread", {
      workflowId: threadId,
      taskQueue: access.taskQueue,
      args: [input],
      typedSearchAttributes: [{ key: AgentIdKey, value: agentId }],
      // Continue-as-new carries the memo: the thread's creation time and its stream key
      // (what a reader proves to a worker's stream endpoint, src/core/stream-key.ts) survive its runs.
      memo: { threadCreatedAt: new Date().toISOString(), [STREAM_KEY_MEMO]: randomKey() },
      workflowIdConflictPolicy: "FAIL",
      workflowIdReusePolicy: "REJECT_DUPLICATE",
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) throw new ThreadAlreadyExistsError({ threadId });
    throw err;
  }
  return { threadId, ...(messageId !== undefined ? { messageId } : {}) };
}

/**
 * AI1018 for a seed (and first prompt) over what a thread's transcript may hold, weighed as
 * the thread will store it: each message gains an id and a timestamp.
 */
function assertSeedFits(threadId: string, input: ThreadInput): void {
  const count = (input.messages?.length ?? 0) + (input.prompt ? 1 : 0);
  const bytes = jsonBytes(input.messages ?? []) + (input.prompt ? jsonBytes(input.prompt.content) + 32 : 0) + count * STORED_MESSAGE_OVERHEAD;
  if (bytes > THREAD_TRANSCRIPT_BYTES) {
    throw new TranscriptFullError({ host: "thread", id: threadId, what: "the seeded transcript and prompt", bytes, leftBytes: THREAD_TRANSCRIPT_BYTES, limitBytes: THREAD_TRANSCRIPT_BYTES });
  }
}

/** What a thread adds to each message it stores: `,"id":"<uuid>","createdAt":"<ISO time>"`. */
const STORED_MESSAGE_OVERHEAD = 84;
