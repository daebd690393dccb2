import { ActivityFailure, ApplicationFailure, proxyLocalActivities } from "@temporalio/workflow";
import type { AgentActivities, PreparedAgent } from "../src/core/contracts.js";
import type { DeferralRecord } from "../src/core/deferral-record.js";
import { ErrorCode } from "../src/core/errors/codes.js";
import { DefinitionChangedError, StepStateError } from "../src/core/errors/deferrals.js";
import { changedParts } from "../src/core/fingerprint.js";
import { legacyOptions } from "./activity-options.js";

/** The preparation activity of runs older than the agent-step layer (version 3), and of every resume's check. */
export const { prepareAgent } = proxyLocalActivities<AgentActivities>(legacyOptions.runPrepare);

/** Preparation again at resume: the agent must still exist and hash as it did when it deferred. */
export async function reprepare(agentId: string, record: DeferralRecord): Promise<PreparedAgent> {
  let prepared: PreparedAgent;
  try {
    prepared = await prepareAgent({ agentId });
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : err;
    if (cause instanceof ApplicationFailure && cause.type === ErrorCode.AgentNotRegistered) {
      throw new StepStateError({ agentId, reason: `no agent "${agentId}" is registered on the worker any more` }).toFailure();
    }
    throw err;
  }
  if (prepared.definitionHash !== record.definitionHash) {
    const changed = changedParts(record.definitionParts, prepared.definitionParts);
    throw new DefinitionChangedError({
      deferralId: record.id,
      agentId,
      deferredHash: record.definitionHash ?? "",
      currentHash: prepared.definitionHash,
      ...(changed ? { changed } : {}),
    }).toFailure();
  }
  return prepared;
}
