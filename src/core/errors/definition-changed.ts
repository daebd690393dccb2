import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type DefinitionChangedFields = { deferralId: string; agentId: string; deferredHash: string; currentHash: string };

/** RC5048: The agent definition a deferred step depends on changed while it was deferred. */
export class DefinitionChangedError extends DurableAgentsError<DefinitionChangedFields> {
  static readonly code = ErrorCode.DefinitionChanged;
  readonly code = ErrorCode.DefinitionChanged;
  constructor(f: DefinitionChangedFields) {
    super(
      `[RC5048] Agent "${f.agentId}" changed (system prompt, model or tools) while deferral "${f.deferralId}" waited, so the deferred step cannot continue; the deferral is now denied. Start a new run to ask again.`,
      f,
    );
  }
}
