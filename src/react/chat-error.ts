import { ErrorCode } from "../core/errors/codes.js";

/** What a chat client's error says: the code the front door answered (`AI1021`, `RC5041`, `internal`, …) or AI1060. */
export interface ChatErrorFields {
  /** A code from the SDK's table, or `internal` for a failure the server keeps to itself. */
  code: string;
  message: string;
  /** The HTTP status, when the error is an answer. */
  status?: number;
}

/**
 * The error state of the browser clients (hooks and the `useChat` transport). A light class
 * on purpose: the SDK's server-side error classes carry Temporal's failure machinery, which
 * has no place in a page. `code` is stable and is the one the code table lists.
 */
export class ChatError extends Error {
  readonly code: string;
  readonly status: number | undefined;
  constructor(fields: ChatErrorFields) {
    super(fields.message);
    this.name = "ChatError";
    this.code = fields.code;
    this.status = fields.status;
  }

  /** AI1060: something the front door sent could not be read; nothing of it was applied. */
  static malformed(where: string, problem: string): ChatError {
    return new ChatError({ code: ErrorCode.ChatResponseMalformed, message: `[AI1060] Unreadable answer from the front door (${where}): ${problem}. Nothing of it was applied.` });
  }
}

/** Codes after which reading again cannot help: the thread is gone or the caller may not read it. */
export const FATAL_CODES: ReadonlySet<string> = new Set([ErrorCode.ThreadNotFound, ErrorCode.ThreadUnauthorized, ErrorCode.RequestMalformed]);

/** What a failed request becomes in a client's state: its `ChatError`, or `network` when the server could not be reached. */
export function asChatError(err: unknown): ChatError {
  if (err instanceof ChatError) return err;
  // fetch rejects with a TypeError when the server cannot be reached: no code from the table fits, so it says so.
  return new ChatError({ code: "network", message: err instanceof Error ? err.message : String(err) });
}
