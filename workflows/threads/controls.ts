import { ThreadMessageInvalidError } from "../../src/core/errors/threads.js";
import { ErrorCode } from "../../src/core/errors/codes.js";
import { ThreadNotResumableError } from "../../src/core/errors/threads.js";
import { ToolCallNotFoundError } from "../../src/core/errors/threads.js";
import { ToolResultDuplicateError } from "../../src/core/errors/threads.js";
import { plainJsonProblem } from "../../src/core/json-check.js";
import { ResumeTokenError } from "../../src/core/errors/deferrals.js";
import { proofProblem } from "../../src/core/proof.js";
import type { ChatMessage } from "../../src/core/messages.js";
import type {
  ThreadResumeReply,
  ThreadResumeRequest,
  ThreadStopReply,
  ThreadToolResultRequest,
} from "../../src/core/thread-contracts.js";
import { findToolCall, openToolCalls } from "../../src/core/thread-transcript.js";
import { ownEntry } from "../../src/core/own.js";
import { refuseMalformed, threadResumeRequestProblem, toolResultRequestProblem } from "../../src/core/request-shapes.js";
import { threadResumeUpdate, threadToolResultUpdate } from "../../src/core/wire/thread.js";
import type { ThreadState } from "./state.js";

/**
 * What a client does to a thread's turn: stop it, resume it (optionally with a prompt),
 * answer an async tool call, delete the thread. Validators refuse cheaply: a refused
 * update leaves nothing in history.
 */
export class ThreadControls {
  constructor(private readonly thread: ThreadState) {}

  validateResume(request: ThreadResumeRequest): void {
    refuseMalformed(threadResumeUpdate.name, threadResumeRequestProblem(request));
    const thread = this.thread;
    thread.assertNotDeleted();
    const prompt = request?.prompt;
    if (prompt !== undefined && (typeof prompt?.content !== "string" || typeof prompt.id !== "string" || prompt.id === "")) {
      throw new ThreadMessageInvalidError({ threadId: thread.threadId, problem: "the prompt must be a string" }).toFailure();
    }
    if (prompt && !thread.inbox.some((i) => i.id === prompt.id) && !thread.messages.some((m) => m.id === prompt.id)) {
      thread.room.refuseUnlessFits({ role: "user", content: prompt.content, id: prompt.id, at: "0000-00-00T00:00:00.000Z" }, "the prompt", { answerFollows: true });
    }
    if (thread.turnActive() || prompt) return;
    if (thread.pendingWork() || (thread.halted && thread.inbox.length > 0)) return;
    throw new ThreadNotResumableError({ threadId: thread.threadId, status: thread.status }).toFailure();
  }

  resume(request: ThreadResumeRequest): ThreadResumeReply {
    const thread = this.thread;
    const previousStatus = thread.status;
    // The validator lets "no argument" through: resume with nothing new.
    const prompt = request?.prompt;
    if (thread.turnActive()) {
      // Already running: the prompt waits its turn like any message sent now.
      if (prompt && !thread.inbox.some((i) => i.id === prompt.id)) {
        thread.inbox.push({ id: prompt.id, kind: "message", message: { role: "user", content: prompt.content }, at: thread.now() });
        thread.showStatus();
      }
      return { status: thread.status, previousStatus };
    }
    if (prompt && !thread.messages.some((m) => m.id === prompt.id)) {
      const message: ChatMessage = { role: "user", content: prompt.content };
      // A user message cannot sit between tool calls and their results: it follows the resumed turn.
      if (openToolCalls(thread.messages).length > 0) thread.inbox.push({ id: prompt.id, kind: "message", message, at: thread.now() });
      else thread.append(message, prompt.id);
    }
    thread.halted = false;
    const next = thread.pendingWork();
    if (next) {
      thread.beginTurn();
      thread.setStatus(next);
    }
    return { status: thread.status, previousStatus };
  }

  stop(): ThreadStopReply {
    const thread = this.thread;
    const previousStatus = thread.status;
    if (!thread.turnActive()) return { status: thread.status, previousStatus };
    thread.halted = true;
    thread.stream.reset("stopped");
    thread.setStatus("stopped");
    // Cancels the model request and running tools; the activities see it at their next heartbeat.
    thread.turnScope?.cancel();
    return { status: thread.status, previousStatus };
  }

  validateToolResult(request: ThreadToolResultRequest): void {
    refuseMalformed(threadToolResultUpdate.name, toolResultRequestProblem(request));
    const thread = this.thread;
    thread.assertNotDeleted();
    const toolCallId = String(request?.toolCallId);
    const hasResult = request !== null && typeof request === "object" && "result" in request && request.result !== undefined;
    const hasError = typeof request?.error === "string";
    if (hasResult === hasError) {
      throw new ThreadMessageInvalidError({ threadId: thread.threadId, problem: "give exactly one of result and error" }).toFailure();
    }
    if (hasResult) {
      const problem = plainJsonProblem(request.result);
      if (problem) throw new ThreadMessageInvalidError({ threadId: thread.threadId, problem: `result is not plain JSON at ${problem.path}: ${problem.problem}` }).toFailure();
    }
    const found = findToolCall(thread.messages, toolCallId);
    if (!found) {
      throw new ToolCallNotFoundError({ threadId: thread.threadId, toolCallId, reason: "no call with this id" }).toFailure();
    }
    // An answered call is no longer among the async ones: the agent's description says
    // whether it was, so a sync call's id reads AI1022 after its result as before it.
    const described = thread.prepared ?? thread.lastPrepared;
    const notAsync = !thread.asyncCalls.has(toolCallId) && described !== undefined && ownEntry(described.tools, found.call.function.name)?.async !== true;
    if (thread.answered(toolCallId) && !notAsync) throw new ToolResultDuplicateError({ threadId: thread.threadId, toolCallId }).toFailure();
    if (!thread.asyncCalls.has(toolCallId)) {
      throw new ToolCallNotFoundError({ threadId: thread.threadId, toolCallId, reason: `it is a call of the sync tool "${found.call.function.name}", whose handler returns its result` }).toFailure();
    }
    this.#checkAnswerToken(toolCallId, request);
    this.thread.room.refuseUnlessFits(resultContent(request), "the tool result", { answerFollows: true });
  }

  /**
   * RC5041 unless the request proves it holds the call's answer token: `authorize` says who
   * may touch the thread, the token says who was asked. A call whose callback has not
   * returned its digest yet refuses with `retryLater`: there is nothing to check against.
   */
  #checkAnswerToken(toolCallId: string, request: ThreadToolResultRequest): void {
    const call = this.thread.asyncCalls.get(toolCallId);
    if (!call) return;
    if (call.digest === undefined) {
      throw new ResumeTokenError({ token: "answer", reason: "the call is not ready for answers yet (its callback has not finished); retry shortly", retryLater: true }).toFailure();
    }
    const problem = proofProblem(request?.proof, call.digest);
    if (problem) throw new ResumeTokenError({ token: "answer", reason: problem }).toFailure();
  }

  toolResult(request: ThreadToolResultRequest): { status: "accepted" } {
    if (!this.thread.answer(request.toolCallId, resultContent(request))) {
      throw new ToolResultDuplicateError({ threadId: this.thread.threadId, toolCallId: request.toolCallId }).toFailure();
    }
    return { status: "accepted" };
  }

  /** Ends the thread: the turn in flight is cancelled, and the workflow closes once handlers finish. */
  delete(): { deleted: true } {
    this.thread.deleteRequested = true;
    // A request of a deleted thread must not stay decidable, nor listed as waiting.
    this.thread.approvals?.withdraw(this.thread, ErrorCode.DeferralCancelled);
    this.thread.turnScope?.cancel();
    return { deleted: true as const };
  }
}

/** An async call's answer as the model reads it. */
function resultContent(request: ThreadToolResultRequest): string {
  return typeof request.error === "string" ? `Error: ${request.error}` : typeof request.result === "string" ? request.result : JSON.stringify(request.result);
}
