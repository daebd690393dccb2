import { ThreadMessageInvalidError } from "../../core/errors/threads.js";
import { assertPayloadFits } from "../../core/payload-size.js";
import type { ThreadSendReply } from "../../core/thread-contracts.js";
import { messageProblem } from "../../core/thread-transcript.js";
import { threadSendUpdate } from "../../core/wire/thread.js";
import { newMessageId, type ThreadAccess } from "./thread-access.js";
import type { AddMessageOptions, SendMessageOptions, ThreadTarget } from "./thread-types.js";

/** `ThreadsClient.sendMessage`: a user message into the thread's inbox, a turn of its own. */
export async function sendMessage(access: ThreadAccess, options: ThreadTarget & SendMessageOptions): Promise<ThreadSendReply> {
  await access.check(options, "thread.send");
  if (typeof options.prompt !== "string") throw new ThreadMessageInvalidError({ threadId: options.threadId, problem: "prompt must be a string" });
  if (options.stream !== undefined && typeof options.stream !== "boolean") throw new ThreadMessageInvalidError({ threadId: options.threadId, problem: "stream must be true or false" });
  assertPayloadFits(options.prompt, "The message");
  return access.update(options.threadId, threadSendUpdate, {
    id: options.messageId ?? newMessageId(),
    kind: "message",
    message: { role: "user", content: options.prompt },
    // Only false travels: true is the default, and a thread workflow older than the option ignores the field (its turn streams).
    ...(options.stream === false ? { stream: false as const } : {}),
  });
}

/** `ThreadsClient.addMessage`: a message into the inbox that starts no turn. */
export async function addMessage(access: ThreadAccess, options: ThreadTarget & AddMessageOptions): Promise<ThreadSendReply> {
  await access.check(options, "thread.addMessage");
  const problem =
    messageProblem(options.message, false) ??
    (options.message.role === "system" && options.trustTranscript !== true
      ? "a system message is added only with trustTranscript: true, from server code that wrote it (never from end-user input)"
      : undefined);
  if (problem) throw new ThreadMessageInvalidError({ threadId: options.threadId, problem });
  assertPayloadFits(options.message, "The message");
  return access.update(options.threadId, threadSendUpdate, { id: options.messageId ?? newMessageId(), kind: "add", message: options.message });
}
