import type { Duration } from "@temporalio/common";
import { setHandler } from "@temporalio/workflow";
import { DeferInFanOutError } from "../../src/core/errors/setup.js";
import { DeferralDeniedError } from "../../src/core/errors/deferrals.js";
import { DeferralExpiredError } from "../../src/core/errors/deferrals.js";
import { durationMs } from "../../src/core/duration.js";
import { jsonSchemaProblem } from "../../src/core/json-schema-check.js";
import { deferralIdProblem, recordsPageProblem, refuseMalformed } from "../../src/core/request-shapes.js";
import { InvalidDefinitionError } from "../../src/core/errors/setup.js";
import { NotPlainJsonError } from "../../src/core/errors/deferrals.js";
import type { JsonObject, JsonValue } from "../../src/core/json.js";
import { plainJsonProblem } from "../../src/core/json-check.js";
import { isDigest } from "../../src/core/proof.js";
import { approvalRecordQuery, deferralQuery, deferralRecordQuery, deferralRecordsQuery, denyUpdate, replaceStepStateUpdate, resumeUpdate, settledUpdate } from "../../src/core/wire/run.js";
import { DeferralBook } from "../deferrals/book.js";
import { workflowDeferralRuntime } from "../deferrals/runtime.js";
import { inFanOut } from "./fan-out.js";

export interface WorkflowDeferOptions {
  /** JSON Schema of a valid payload; resume refuses others with RC5049 (token not spent). */
  schema?: JsonObject;
  /** How long the deferral stays resumable. Default `"72h"`. */
  ttl?: Duration;
  /** What the resume's authorize hook needs; plain JSON, never shown on acknowledgments. */
  meta?: JsonObject;
  /**
   * What the token is bound to, like a tool call id for agents: mint the token for this
   * value (`mintResumeToken(secret, deferralId, callId)`). Default `"workflow"`.
   */
  callId?: string;
  /**
   * `resumeDigest(token)` of the token handed out for this deferral, computed where it was
   * minted (an activity) and returned to the workflow: a resume must then prove it holds
   * that token (RC5041 otherwise), checked here, where the state lives. Without it, any
   * caller with access to the namespace can resume the deferral.
   */
  digest?: string;
}

// Module state is per workflow execution inside Temporal's sandbox.
let book: DeferralBook | undefined;

/**
 * Makes a plain workflow deferrable: `defer()` works inside it, resumes go through the
 * same `AgentClient.resume()`, and the workflow stays open until every resume is answered.
 */
export function deferrable<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  const wrapped = async (...args: A): Promise<R> => {
    const deferrals = new DeferralBook(workflowDeferralRuntime());
    book = deferrals;
    // Before `fn` runs: a resume that came with the start is answered from this book.
    setHandler(deferralQuery, (id) => {
      refuseMalformed(deferralQuery.name, deferralIdProblem(id));
      return deferrals.records.view(id);
    });
    setHandler(deferralRecordQuery, (id) => {
      refuseMalformed(deferralRecordQuery.name, deferralIdProblem(id));
      return deferrals.records.read(id);
    });
    setHandler(deferralRecordsQuery, (request) => {
      refuseMalformed(deferralRecordsQuery.name, recordsPageProblem(request));
      return deferrals.records.page(request.offset);
    });
    // No transcript: the record alone, so approvals.get reads a plain deferral in one query too.
    setHandler(approvalRecordQuery, (id) => {
      refuseMalformed(approvalRecordQuery.name, deferralIdProblem(id));
      return deferrals.records.read(id);
    });
    setHandler(settledUpdate, () => deferrals.outcome.settled());
    setHandler(resumeUpdate, (request) => deferrals.resumes.resume(request), { validator: (request) => deferrals.resumes.validate(request) });
    setHandler(replaceStepStateUpdate, (request) => deferrals.stepStates.replace(request), {
      validator: (request) => deferrals.stepStates.validate(request),
    });
    setHandler(denyUpdate, (request) => deferrals.deny(request), { validator: (request) => deferrals.validateDeny(request) });
    return deferrals.run(() => fn(...args));
  };
  // Temporal registers a workflow under its function name.
  Object.defineProperty(wrapped, "name", { value: fn.name });
  return wrapped;
}

/** The id the next `defer()` will have: put it (and a token minted for it) in the notification first. */
export function nextDeferralId(): string {
  return requireBook().nextDeferralId();
}

/**
 * Parks the workflow until a resume (its payload is returned) or the TTL (RC5047 is
 * thrown: catch it to re-ask). The same record, tokens, checks and codes as agent runs.
 */
export async function defer<T extends JsonValue = JsonValue>(options: WorkflowDeferOptions = {}): Promise<T> {
  const deferrals = requireBook();
  if (inFanOut()) throw new DeferInFanOutError({ where: "a fanOut() branch" }).toFailure();
  const meta = options.meta ?? {};
  const problem = plainJsonProblem(meta) ?? plainJsonProblem(options.schema ?? null);
  if (problem) throw new NotPlainJsonError({ what: "meta", ...problem }).toFailure();
  const ttlMs = ttlOf(options.ttl ?? "72h");
  if (options.digest !== undefined && !isDigest(options.digest)) {
    throw new InvalidDefinitionError({ subject: "defer()", problem: "digest must be resumeDigest(token): 64 lowercase hex characters" }).toFailure();
  }
  // A schema the resume could not apply would throw in its handler, days later: refuse it here.
  const invalid = options.schema ? jsonSchemaProblem(options.schema) : undefined;
  if (invalid) throw new InvalidDefinitionError({ subject: "defer() schema", problem: `not a usable JSON Schema: ${invalid}` }).toFailure();
  const parked = await deferrals.park({
    toolCallId: options.callId ?? "workflow",
    meta,
    ttlMs,
    ...(options.schema ? { schema: options.schema } : {}),
    ...(options.digest ? { digest: options.digest } : {}),
  }).outcome;
  if (parked.kind === "expired") {
    throw new DeferralExpiredError({ deferralId: parked.record.id, expiresAt: parked.record.expiresAt }).toFailure();
  }
  if (parked.kind === "denied") {
    throw new DeferralDeniedError({ deferralId: parked.record.id, reason: parked.record.denial.reason }).toFailure();
  }
  return parked.payload as T;
}

function ttlOf(ttl: Duration): number {
  try {
    return durationMs(ttl, "defer() ttl");
  } catch (err) {
    throw (err as InvalidDefinitionError).toFailure();
  }
}

function requireBook(): DeferralBook {
  if (!book) {
    throw new InvalidDefinitionError({
      subject: "workflow",
      problem: "defer() needs the workflow to be wrapped: export const myWorkflow = deferrable(async function myWorkflow(...) {...})",
    }).toFailure();
  }
  return book;
}
