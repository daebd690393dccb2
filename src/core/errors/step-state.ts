import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type StepStateFields = { agentId: string; reason: string };

/** AI1007: Stored step state cannot be re-entered (agent gone or rebound, wrong shape, deferred call missing). */
export class StepStateError extends DurableAgentsError<StepStateFields> {
  static readonly code = ErrorCode.StepStateInvalid;
  readonly code = ErrorCode.StepStateInvalid;
  constructor(f: StepStateFields) {
    super(
      `[AI1007] The stored step state of agent "${f.agentId}" cannot be re-entered: ${f.reason}.`,
      f,
    );
  }
}
