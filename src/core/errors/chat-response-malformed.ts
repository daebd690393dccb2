import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface ChatResponseMalformedFields {
  /** What was being read: `event stream`, `GET /threads/:id`, … */
  where: string;
  problem: string;
}

/**
 * AI1060: a chat client got something from the front door it cannot read (an event that
 * is not a stream entry, an answer that is not the route's JSON). Nothing of it was
 * applied; the client keeps what it had and reads again from the last entry it applied.
 */
export class ChatResponseMalformedError extends DurableAgentsError<ChatResponseMalformedFields> {
  static readonly code = ErrorCode.ChatResponseMalformed;
  readonly code = ErrorCode.ChatResponseMalformed;
  constructor(fields: ChatResponseMalformedFields) {
    super(`[AI1060] Unreadable answer from the front door (${fields.where}): ${fields.problem}. Nothing of it was applied.`, fields);
  }
}
