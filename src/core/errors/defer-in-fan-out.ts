import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type DeferInFanOutFields = { where: string };

/** RC5051: A deferral was attempted inside a fan-out. */
export class DeferInFanOutError extends DurableAgentsError<DeferInFanOutFields> {
  static readonly code = ErrorCode.DeferInFanOut;
  readonly code = ErrorCode.DeferInFanOut;
  constructor(f: DeferInFanOutFields) {
    super(
      `[RC5051] Cannot defer from inside ${f.where}: a fan-out branch has no single place to resume. Defer before the fan-out, or after it joins.`,
      f,
    );
  }
}
