import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type ToolCallMismatchFields = { deferralId: string; toolCallId: string };

/** RC5055: The token belongs to a different tool call than the one that won the deferral. */
export class ToolCallMismatchError extends DurableAgentsError<ToolCallMismatchFields> {
  static readonly code = ErrorCode.ToolCallMismatch;
  readonly code = ErrorCode.ToolCallMismatch;
  constructor(f: ToolCallMismatchFields) {
    super(
      `[RC5055] This token belongs to tool call "${f.toolCallId}", which did not win deferral "${f.deferralId}" (a sibling call in the same batch did). The deferral is untouched; only the winning call's recipient can resume it.`,
      f,
    );
  }
}
