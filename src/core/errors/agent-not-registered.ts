import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface AgentNotRegisteredFields {
  agentId: string;
  /** The agent ids the worker does know. */
  registered: string[];
}

/** AI1002: a run names an agent that the worker polling its task queue was not given. */
export class AgentNotRegisteredError extends DurableAgentsError<AgentNotRegisteredFields> {
  static readonly code = ErrorCode.AgentNotRegistered;
  readonly code = ErrorCode.AgentNotRegistered;
  constructor(fields: AgentNotRegisteredFields) {
    super(
      `[AI1002] No agent "${fields.agentId}" is registered on this worker (registered: ${
        fields.registered.join(", ") || "none"
      }). Pass it in createAgentWorker({ agents: [...] }).`,
      fields,
    );
  }
}
