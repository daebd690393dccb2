import { Hono } from "hono";
import { z } from "zod";
import type { ChatMessage } from "../core/messages.js";
import type { ThreadsClient } from "../client/threads/threads-client.js";
import { DecideBody } from "./decide-body.js";
import type { HttpEnv } from "./env.js";
import { eventStreamRoute } from "./events.js";
import type { EventStreamOptions } from "./options.js";
import { Id, JsonPresent, OffsetCursor, PageSize, valid } from "./validate.js";

// Messages are checked in depth by the client (AI1027 names the defect); here only their outline.
const Message = z.looseObject({ role: z.enum(["system", "user", "assistant", "tool"]) });

const Create = z.object({
  agent: Id.optional(),
  threadId: Id.optional(),
  prompt: z.string().optional(),
  messages: z.array(Message).max(10_000).optional(),
  autoStart: z.boolean().optional(),
  stream: z.boolean().optional(),
});
const Send = z.object({ prompt: z.string(), messageId: Id.optional(), stream: z.boolean().optional() });
const Add = z.object({ message: Message, messageId: Id.optional() });
const ResumeThread = z.object({ prompt: z.string().optional() });
// The answer token from the callback's link (ctx.answerToken): without it the thread refuses the answer (RC5041).
const AnswerToken = z.string().max(4096).optional();
const ToolResult = z.object({ result: JsonPresent, answerToken: AnswerToken });
const ToolError = z.object({ error: z.string(), answerToken: AnswerToken });
const Page = z.object({
  cursor: OffsetCursor.optional(),
  limit: PageSize(1000).optional(),
  // Query strings are text: only the two spellings a caller means are read.
  excludeSystemMessages: z.enum(["true", "false"]).optional(),
});
const ListPage = z.object({ cursor: z.string().max(4096).regex(/^[A-Za-z0-9+/=]*$/, "is not a cursor this route returned").optional(), limit: PageSize(1000).optional() });
const ThreadParam = z.object({ id: Id });
const CallParam = z.object({ id: Id, toolCallId: Id });
const ApprovalParam = z.object({ id: Id, approvalId: Id });

/**
 * The whole thread surface: every route passes the caller to the client, whose `authorize`
 * hook decides. No route takes `trustTranscript` from a request (the schemas drop unknown
 * keys and the options are built field by field): seeded tool results, system messages and
 * open tool calls stay refused (AI1027) for HTTP callers.
 */
export function threadRoutes(threads: ThreadsClient, events: EventStreamOptions) {
  const caller = (principal: HttpEnv["Variables"]["principal"]) => (principal ? { principal } : {});
  return new Hono<HttpEnv>()
    .post("/", valid("json", Create), async (c) => {
      const body = c.req.valid("json");
      const created = await threads.createThread({
        ...caller(c.get("principal")),
        ...(body.agent !== undefined ? { agent: body.agent } : {}),
        ...(body.threadId !== undefined ? { threadId: body.threadId } : {}),
        ...(body.prompt !== undefined ? { prompt: body.prompt } : {}),
        ...(body.messages !== undefined ? { messages: body.messages as unknown as ChatMessage[] } : {}),
        ...(body.autoStart !== undefined ? { autoStart: body.autoStart } : {}),
        ...(body.stream !== undefined ? { stream: body.stream } : {}),
      });
      return c.json(created, 201);
    })
    .get("/", valid("query", ListPage), async (c) => {
      const { cursor, limit } = c.req.valid("query");
      return c.json(await threads.listThreads({ ...caller(c.get("principal")), ...(cursor ? { cursor } : {}), ...(limit ? { limit } : {}) }));
    })
    .get("/:id", valid("param", ThreadParam), async (c) => c.json(await threads.state({ threadId: c.req.valid("param").id, ...caller(c.get("principal")) })))
    .delete("/:id", valid("param", ThreadParam), async (c) => c.json(await threads.deleteThread({ threadId: c.req.valid("param").id, ...caller(c.get("principal")) })))
    .get("/:id/messages", valid("param", ThreadParam), valid("query", Page), async (c) => {
      const { cursor, limit, excludeSystemMessages } = c.req.valid("query");
      return c.json(
        await threads.listMessages({
          threadId: c.req.valid("param").id,
          ...caller(c.get("principal")),
          ...(cursor !== undefined ? { cursor } : {}),
          ...(limit !== undefined ? { limit } : {}),
          ...(excludeSystemMessages !== undefined ? { excludeSystemMessages: excludeSystemMessages === "true" } : {}),
        }),
      );
    })
    .post("/:id/messages", valid("param", ThreadParam), valid("json", Send), async (c) => {
      const { prompt, messageId, stream } = c.req.valid("json");
      const reply = await threads.sendMessage({
        threadId: c.req.valid("param").id,
        prompt,
        ...(messageId ? { messageId } : {}),
        ...(stream !== undefined ? { stream } : {}),
        ...caller(c.get("principal")),
      });
      return c.json(reply, 202);
    })
    .post("/:id/messages/add", valid("param", ThreadParam), valid("json", Add), async (c) => {
      const { message, messageId } = c.req.valid("json");
      const reply = await threads.addMessage({
        threadId: c.req.valid("param").id,
        message: message as unknown as ChatMessage,
        ...(messageId ? { messageId } : {}),
        ...caller(c.get("principal")),
      });
      return c.json(reply, 202);
    })
    .post("/:id/stop", valid("param", ThreadParam), async (c) => c.json(await threads.stopThread({ threadId: c.req.valid("param").id, ...caller(c.get("principal")) })))
    .post("/:id/resume", valid("param", ThreadParam), valid("json", ResumeThread), async (c) => {
      const { prompt } = c.req.valid("json");
      return c.json(await threads.resumeThread({ threadId: c.req.valid("param").id, ...(prompt !== undefined ? { prompt } : {}), ...caller(c.get("principal")) }));
    })
    .post("/:id/tool-calls/:toolCallId/result", valid("param", CallParam), valid("json", ToolResult), async (c) => {
      const { id, toolCallId } = c.req.valid("param");
      const { result, answerToken } = c.req.valid("json");
      return c.json(await threads.addToolResult({ threadId: id, toolCallId, result: result as never, answerToken, ...caller(c.get("principal")) }));
    })
    .post("/:id/tool-calls/:toolCallId/error", valid("param", CallParam), valid("json", ToolError), async (c) => {
      const { id, toolCallId } = c.req.valid("param");
      const { error, answerToken } = c.req.valid("json");
      return c.json(await threads.addToolError({ threadId: id, toolCallId, error, answerToken, ...caller(c.get("principal")) }));
    })
    // The chat UI's approve / edit / reject: asked as `thread.decide`, then checked by the thread like any resume.
    .post("/:id/approvals/:approvalId", valid("param", ApprovalParam), valid("json", DecideBody), async (c) => {
      const { id, approvalId } = c.req.valid("param");
      const { decisions, shown } = c.req.valid("json");
      return c.json(await threads.decide({ threadId: id, approvalId, decisions, ...(shown !== undefined ? { shown } : {}), ...caller(c.get("principal")) }));
    })
    .get("/:id/events", valid("param", ThreadParam), eventStreamRoute({ source: threads, open: (threadId, principal) => threads.openStream({ threadId, ...caller(principal) }) }, events));
}
