import { ThreadMessageInvalidError } from "../../src/core/errors/threads.js";
import type { InboxItem, ThreadSendReply, ThreadSendRequest } from "../../src/core/thread-contracts.js";
import { messageProblem, openToolCalls } from "../../src/core/thread-transcript.js";
import { refuseMalformed, sendRequestProblem } from "../../src/core/request-shapes.js";
import { threadSendUpdate } from "../../src/core/wire/thread.js";
import { MOVED_ON, type ThreadState } from "./state.js";

/**
 * Messages sent to a thread. While a turn runs (or the thread is halted) they wait in the
 * inbox, and each `message` then gets a turn of its own; an `add` on an idle thread joins
 * the transcript at once. The same id twice sends once.
 */
export class ThreadInbox {
  constructor(private readonly thread: ThreadState) {}

  // Validators refuse cheaply: a refused update leaves nothing in history.
  validate(request: ThreadSendRequest): void {
    refuseMalformed(threadSendUpdate.name, sendRequestProblem(request));
    this.thread.assertNotDeleted();
    const problem =
      typeof request?.id !== "string" || request.id === ""
        ? "the message id must be a non-empty string"
        : request.kind !== "message" && request.kind !== "add"
          ? "kind must be message or add"
          : request.kind === "message" && request.message?.role !== "user"
            ? "sendMessage sends a user message"
            : request.stream !== undefined && (request.stream !== false || request.kind !== "message")
              ? "stream is false or absent, on a message"
              : messageProblem(request.message, false);
    if (problem) throw new ThreadMessageInvalidError({ threadId: this.thread.threadId, problem }).toFailure();
    // A retry of a message already taken changes nothing, so it needs no room.
    if (!this.thread.inbox.some((i) => i.id === request.id) && !this.thread.messages.some((m) => m.id === request.id)) {
      this.thread.room.refuseUnlessFits(queuedForm(request), "the message", { answerFollows: true });
    }
  }

  send(request: ThreadSendRequest): ThreadSendReply {
    const thread = this.thread;
    // A retried call (same id) changes nothing and gets the first answer again.
    const queuedIndex = thread.inbox.findIndex((i) => i.id === request.id);
    if (queuedIndex >= 0 || thread.messages.some((m) => m.id === request.id)) {
      return { messageId: request.id, queued: queuedIndex >= 0, duplicate: true };
    }
    if (request.kind === "message" && thread.halted) {
      // A new message after a stop or failure moves on: open calls get a result, the
      // thread runs again (resumeThread is the way to continue the interrupted turn).
      thread.closeOpenCalls(MOVED_ON);
      thread.halted = false;
    }
    const at = thread.now();
    if (request.kind === "add" && !thread.turnActive() && thread.inbox.length === 0 && openToolCalls(thread.messages).length === 0) {
      thread.append(request.message, request.id);
      return { messageId: request.id, queued: false, duplicate: false };
    }
    thread.inbox.push({ id: request.id, kind: request.kind, message: request.message, at, ...(request.stream === false ? { stream: false as const } : {}) });
    thread.showStatus();
    return { messageId: request.id, queued: thread.turnActive() || thread.halted || thread.inbox.length > 1, duplicate: false };
  }

  /** Whether the next queued item can be taken: no turn runs and the thread is not halted. */
  canTakeNext(): boolean {
    return !this.thread.turnActive() && !this.thread.halted && this.thread.inbox.length > 0;
  }

  /** Takes the next item into the transcript; a `message` starts a turn. */
  takeNext(): void {
    const thread = this.thread;
    const item = thread.inbox.shift();
    if (!item) return;
    thread.closeOpenCalls(MOVED_ON);
    thread.append(item.message, item.id);
    if (item.kind === "message") {
      thread.beginTurn(item.stream !== false);
      thread.setStatus("streaming");
    }
  }
}

/** A message as the queue holds it, to weigh it before it is let in. */
function queuedForm(request: ThreadSendRequest): InboxItem {
  return { id: request.id, kind: request.kind, message: request.message, at: "0000-00-00T00:00:00.000Z" };
}
