import { ThreadMessageInvalidError } from "../../core/errors/threads.js";
import { assertPayloadFits } from "../../core/payload-size.js";
import type { ThreadResumeReply, ThreadStopReply } from "../../core/thread-contracts.js";
import { threadResumeUpdate, threadStopUpdate } from "../../core/wire/thread.js";
import { newMessageId, type ThreadAccess } from "./thread-access.js";
import type { ResumeThreadOptions, ThreadTarget } from "./thread-types.js";

/** `ThreadsClient.resumeThread`: continues a stopped or failed thread, with an optional prompt. */
export async function resumeThread(access: ThreadAccess, options: ThreadTarget & ResumeThreadOptions): Promise<ThreadResumeReply> {
  await access.check(options, "thread.resume");
  if (options.prompt !== undefined && typeof options.prompt !== "string") {
    throw new ThreadMessageInvalidError({ threadId: options.threadId, problem: "prompt must be a string" });
  }
  if (options.prompt !== undefined) assertPayloadFits(options.prompt, "The prompt");
  return access.update(options.threadId, threadResumeUpdate, {
    ...(options.prompt !== undefined ? { prompt: { id: newMessageId(), content: options.prompt } } : {}),
  });
}

/** `ThreadsClient.stopThread`: interrupts the running turn. */
export async function stopThread(access: ThreadAccess, options: ThreadTarget): Promise<ThreadStopReply> {
  await access.check(options, "thread.stop");
  return access.update(options.threadId, threadStopUpdate);
}
