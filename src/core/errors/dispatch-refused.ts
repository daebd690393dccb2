import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type DispatchRefusedFields = { agentId: string; restored: boolean; reason: string };

/** AI1011: a tool dispatched an agent whose `authorize` refused the run's principal. */
export class DispatchRefusedError extends DurableAgentsError<DispatchRefusedFields> {
  static readonly code = ErrorCode.DispatchRefused;
  readonly code = ErrorCode.DispatchRefused;
  constructor(f: DispatchRefusedFields) {
    super(
      f.restored
        ? `[AI1011] Agent "${f.agentId}" refuses the run's principal: it was restored from storage after a resume and not re-verified (${f.reason}). Resume with reverify: <the live, verified principal> to re-verify it.`
        : `[AI1011] Agent "${f.agentId}" refused the run's principal: ${f.reason}.`,
      f,
    );
  }
}
