import { threadMessagesQuery } from "../../core/wire/thread.js";
import { messagePage } from "../shared-options.js";
import { pageOf } from "../../core/payload-size.js";
import type { ArchivedSpan } from "../../core/compaction.js";
import type { ThreadMessage } from "../../core/thread-contracts.js";
import { archivedMessages } from "./archived-messages.js";
import type { ThreadAccess } from "./thread-access.js";
import type { ListThreadMessagesOptions, MessagePage, ThreadTarget } from "./thread-types.js";

/** `ThreadsClient.listMessages`: one page of the transcript, read by query. */
export async function listMessages(access: ThreadAccess, options: ThreadTarget & ListThreadMessagesOptions): Promise<MessagePage> {
  const { offset, limit } = messagePage(options, "threads.listMessages()");
  await access.check(options, "thread.messages");
  const page = await access.query(options.threadId, () => access.handle(options.threadId).query(threadMessagesQuery, { offset, limit }));
  // The page starts among messages compaction archived: read from the history that keeps them, one compaction's at a time.
  if (page.archive) page.messages = await archivedPage(access, options.threadId, page.archive, offset, limit);
  const next = offset + page.messages.length;
  const messages = options.excludeSystemMessages === false ? page.messages : page.messages.filter((m) => m.role !== "system");
  return { messages, total: page.total, ...(next < page.total ? { cursor: String(next) } : {}) };
}

/** The page at `offset` among archived messages: within the one compaction that holds it. */
async function archivedPage(access: ThreadAccess, threadId: string, archive: ArchivedSpan[], offset: number, limit: number): Promise<ThreadMessage[]> {
  let start = 0;
  for (const span of archive) {
    if (offset < start + span.count) return pageOf(await archivedMessages(access.client, threadId, span, start), offset - start, limit);
    start += span.count;
  }
  return [];
}
