import { InvalidDefinitionError } from "../../core/errors/setup.js";
import { threadMessagesQuery } from "../../core/wire/thread.js";
import type { ThreadAccess } from "./thread-access.js";
import type { ListMessagesOptions, MessagePage } from "./thread-types.js";

/** `ThreadsClient.listMessages`: one page of the transcript, read by query. */
export async function listMessages(access: ThreadAccess, options: ListMessagesOptions): Promise<MessagePage> {
  await access.check(options, "thread.messages");
  const offset = options.cursor === undefined ? 0 : Number(options.cursor);
  if (!Number.isInteger(offset) || offset < 0) throw new InvalidDefinitionError({ subject: "listMessages", problem: `cursor ${JSON.stringify(options.cursor)} is not one listMessages returned` });
  const limit = options.limit ?? 100;
  const page = await access.query(options.threadId, () => access.handle(options.threadId).query(threadMessagesQuery, { offset, limit }));
  const next = offset + page.messages.length;
  const messages = options.excludeSystemMessages === false ? page.messages : page.messages.filter((m) => m.role !== "system");
  return { messages, total: page.total, ...(next < page.total ? { cursor: String(next) } : {}) };
}
