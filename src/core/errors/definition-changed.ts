import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type DefinitionChangedFields = {
  deferralId: string;
  agentId: string;
  deferredHash: string;
  currentHash: string;
  /**
   * What changed: `system` (prompt), `model`, `tools`, `agents` (sub-agents), `settings`
   * (temperature and the other model settings), `output` (schema), `version`. Absent when
   * the deferral was recorded by a worker that did not keep its parts.
   */
  changed?: string[];
};

const PART_NAMES: Record<string, string> = {
  system: "system prompt",
  model: "model",
  tools: "tools",
  agents: "sub-agents",
  settings: "model settings",
  output: "output schema",
  version: "version",
};

/** RC5048: The agent definition a deferred step depends on changed while it was deferred. */
export class DefinitionChangedError extends DurableAgentsError<DefinitionChangedFields> {
  static readonly code = ErrorCode.DefinitionChanged;
  readonly code = ErrorCode.DefinitionChanged;
  constructor(f: DefinitionChangedFields) {
    super(
      `[RC5048] Agent "${f.agentId}" changed (${whatChanged(f.changed)}) while deferral "${f.deferralId}" waited, so the deferred step cannot continue; the deferral is now denied. Start a new run to ask again.`,
      f,
    );
  }
}

/** "its model settings and output schema"; every part it may be when the record does not say. */
function whatChanged(changed: string[] | undefined): string {
  const names = (Array.isArray(changed) ? changed : []).map((part) => (Object.hasOwn(PART_NAMES, part) ? PART_NAMES[part]! : String(part)));
  if (names.length === 0) return `its ${Object.values(PART_NAMES).slice(0, -1).join(", ")} or version`;
  return `its ${names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`}`;
}
