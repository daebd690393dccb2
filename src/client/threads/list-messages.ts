import { threadMessagesQuery } from "../../core/wire/thread.js";
import { messagePage } from "../shared-options.js";
import type { ThreadAccess } from "./thread-access.js";
import type { ListThreadMessagesOptions, MessagePage, ThreadTarget } from "./thread-types.js";

/** `ThreadsClient.listMessages`: one page of the transcript, read by query. */
export async function listMessages(access: ThreadAccess, options: ThreadTarget & ListThreadMessagesOptions): Promise<MessagePage> {
  const { offset, limit } = messagePage(options, "threads.listMessages()");
  await access.check(options, "thread.messages");
  const page = await access.query(options.threadId, () => access.handle(options.threadId).query(threadMessagesQuery, { offset, limit }));
  const next = offset + page.messages.length;
  const messages = options.excludeSystemMessages === false ? page.messages : page.messages.filter((m) => m.role !== "system");
  return { messages, total: page.total, ...(next < page.total ? { cursor: String(next) } : {}) };
}
