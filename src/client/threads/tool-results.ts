import { ResumeTokenError } from "../../core/errors/deferrals.js";
import { InvalidDefinitionError } from "../../core/errors/setup.js";
import { ThreadMessageInvalidError, ToolResultDuplicateError } from "../../core/errors/threads.js";
import type { JsonValue } from "../../core/json.js";
import { plainJsonProblem } from "../../core/json-check.js";
import { assertPayloadFits } from "../../core/payload-size.js";
import { proofOf } from "../../core/proof.js";
import { threadSnapshotQuery, threadToolResultUpdate } from "../../core/wire/thread.js";
import { answerTokenProblem } from "../../deferral/token.js";
import { threadIdOf, type ThreadAccess } from "./thread-access.js";
import type { Caller } from "../authorize.js";
import type { AddToolErrorOptions, AddToolResultOptions, ThreadTarget, ToolResultReply } from "./thread-types.js";

/** `ThreadsClient.addToolResult`: an async call's result, sent with the proof of its answer token. */
export async function addToolResult(access: ThreadAccess, options: ThreadTarget & AddToolResultOptions): Promise<ToolResultReply> {
  await checkAnswer(access, options, "thread.toolResult");
  const proof = proofFor(options);
  const problem = plainJsonProblem(options.result);
  if (problem || options.result === undefined) {
    throw new ThreadMessageInvalidError({ threadId: options.threadId, problem: `the result is not plain JSON${problem ? ` at ${problem.path}: ${problem.problem}` : ""}` });
  }
  assertPayloadFits(options.result, "The tool result");
  return toolResult(access, options.threadId, options.toolCallId, { result: options.result, ...proof });
}

/** `ThreadsClient.addToolError`: an async call's failure, sent as `addToolResult` sends a result. */
export async function addToolError(access: ThreadAccess, options: ThreadTarget & AddToolErrorOptions): Promise<ToolResultReply> {
  await checkAnswer(access, options, "thread.toolError");
  const proof = proofFor(options);
  if (typeof options.error !== "string") throw new ThreadMessageInvalidError({ threadId: options.threadId, problem: "error must be a string" });
  assertPayloadFits(options.error, "The tool error");
  return toolResult(access, options.threadId, options.toolCallId, { error: options.error, ...proof });
}

/** RC5041 for what cannot be an answer token, before anything is sent; the thread checks possession. */
function proofFor(options: Partial<Pick<AddToolResultOptions, "answerToken">>): { proof?: string } {
  const token = options.answerToken;
  if (token === undefined) return {};
  const problem = answerTokenProblem(token);
  if (problem) throw new ResumeTokenError({ token: "answer", reason: problem });
  return { proof: proofOf(token) };
}

async function toolResult(
  access: ThreadAccess,
  threadId: string,
  toolCallId: string,
  body: { result?: JsonValue; error?: string; proof?: string },
): Promise<ToolResultReply> {
  try {
    await access.update(threadId, threadToolResultUpdate, { toolCallId, ...body });
    return { status: "accepted" as const, toolCallId };
  } catch (err) {
    if (ToolResultDuplicateError.isInstance(err)) return { status: "duplicate" as const, toolCallId };
    throw err;
  }
}

/** Tool answers: the hook also sees the call and its tool's name, read from the thread when there is a hook to tell. */
async function checkAnswer(
  access: ThreadAccess,
  options: { threadId?: string; toolCallId?: string } & Caller,
  operation: "thread.toolResult" | "thread.toolError",
): Promise<void> {
  const threadId = threadIdOf(options, operation);
  if (!access.authorize) return;
  const toolCallId = options.toolCallId;
  if (typeof toolCallId !== "string" || toolCallId === "") {
    throw new InvalidDefinitionError({ subject: operation, problem: "toolCallId must be a non-empty string" });
  }
  await access.ask({ operation, principal: options.principal, threadId, toolCallId, toolName: await toolNameOf(access, threadId, toolCallId) });
}

/**
 * The tool of an open call, for the hook. Whatever goes wrong (no such thread, no such
 * call) reads as unknown: the hook decides first, and the answer itself then meets the
 * thread's own refusal, so a refused caller learns nothing about the thread.
 */
async function toolNameOf(access: ThreadAccess, threadId: string, toolCallId: string): Promise<string | undefined> {
  try {
    const snapshot = await access.handle(threadId).query(threadSnapshotQuery);
    return snapshot.toolCalls.find((call) => call.toolCallId === toolCallId)?.name;
  } catch {
    return undefined;
  }
}
