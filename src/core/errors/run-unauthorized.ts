import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type RunUnauthorizedFields = {
  /** The operation refused, e.g. `"run.cancel"` or `"deferral.get"`. */
  operation: string;
  runId: string;
  /** Set for the deferral operations. */
  deferralId?: string;
  /** What the hook gave instead of `true`. */
  returned: string;
};

/** AI1013: the AgentClient's authorize hook did not return exactly `true` for a run or deferral operation; nothing was read or changed. */
export class RunUnauthorizedError extends DurableAgentsError<RunUnauthorizedFields> {
  static readonly code = ErrorCode.RunUnauthorized;
  readonly code = ErrorCode.RunUnauthorized;
  constructor(f: RunUnauthorizedFields) {
    const subject = f.deferralId !== undefined ? `deferral "${clip(f.deferralId)}"` : `run "${clip(f.runId)}"`;
    super(
      `[AI1013] ${f.operation} of ${subject} refused: the authorize hook returned ${f.returned}, not true. Nothing was read or changed; call again as a principal the hook allows.`,
      f,
    );
  }
}

// The fields keep the whole id; the message stays readable whatever id a caller sent.
const clip = (id: string) => (id.length > 200 ? `${id.slice(0, 200)}…` : id);
