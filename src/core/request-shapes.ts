/**
 * Shape checks of what updates, signals and queries carry. The clients only send
 * well-formed arguments, but anyone with namespace access can send anything through a raw
 * Temporal client: a handler that trusted the shape would throw in workflow code, and a
 * signal that throws stays in history and fails every workflow task after it. Each
 * returns what is wrong, or undefined. Sandbox-safe.
 */

import { MessageMalformedError } from "./errors/runs.js";

type Problem = string | undefined;

/** Refuses `request` (an update's or query's name) with AI1012 when its argument has a `problem`. */
export function refuseMalformed(request: string, problem: Problem): void {
  if (problem !== undefined) throw new MessageMalformedError({ request, problem }).toFailure();
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isCount = (v: unknown): boolean => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

function principalProblem(v: unknown, name: string): Problem {
  if (v === undefined) return undefined;
  return isObject(v) && typeof v.id === "string" ? undefined : `${name} must be a principal: an object with a string id`;
}

/** The resume update: which deferral, which call, the payload, and who resumes. */
export function resumeRequestProblem(r: unknown): Problem {
  if (!isObject(r)) return "the request must be an object";
  if (typeof r.deferralId !== "string") return "deferralId must be a string";
  if (typeof r.toolCallId !== "string") return "toolCallId must be a string";
  if (r.shown !== undefined && typeof r.shown !== "string") return "shown must be a string";
  if (r.escalated !== undefined && typeof r.escalated !== "boolean") return "escalated must be a boolean";
  return principalProblem(r.resumedBy, "resumedBy") ?? principalProblem(r.reverify, "reverify");
}

/** The replaceStepState update: a compare-and-swap of a waiting record's thread. */
export function replaceStepStateProblem(r: unknown): Problem {
  if (!isObject(r)) return "the request must be an object";
  if (typeof r.deferralId !== "string") return "deferralId must be a string";
  if (r.trustTranscript !== undefined && typeof r.trustTranscript !== "boolean") return "trustTranscript must be a boolean";
  // The step state itself is the validator's to judge (AI1007, AI1008), as it always was.
  return typeof r.expectedFingerprint === "string" ? undefined : "expectedFingerprint must be a string";
}

/** The cancel update: nothing, or `{ reason }`. */
export function cancelRequestProblem(r: unknown): Problem {
  if (r === undefined) return undefined;
  if (!isObject(r)) return "the request must be an object or nothing";
  return r.reason === undefined || typeof r.reason === "string" ? undefined : "reason must be a string";
}

/** Longest reason a deny takes: it is shown to the model and stored in the record. */
export const MAX_DENY_REASON = 2_000;

/** The deny update: which deferral, why, and who denies. */
export function denyRequestProblem(r: unknown): Problem {
  if (!isObject(r)) return "the request must be an object";
  if (typeof r.deferralId !== "string") return "deferralId must be a string";
  if (typeof r.reason !== "string" || r.reason.trim() === "") return "reason must be a non-empty string";
  if (r.reason.length > MAX_DENY_REASON) return `reason must be at most ${MAX_DENY_REASON} characters`;
  return principalProblem(r.deniedBy, "deniedBy");
}

/** The deferral query: a deferral id. */
export function deferralIdProblem(id: unknown): Problem {
  return typeof id === "string" ? undefined : "the deferral id must be a string";
}

/** A run's thread query: `{ epoch, length }`. */
/** `deferralRecordsQuery`'s argument: `{ offset }`, a whole number from 0. */
export function recordsPageProblem(r: unknown): Problem {
  if (!isObject(r) || !isCount(r.offset)) return "expected { offset: a whole number from 0 }";
  return undefined;
}

export function threadPrefixProblem(r: unknown): Problem {
  if (!isObject(r)) return "the request must be an object";
  return isCount(r.epoch) && isCount(r.length) ? undefined : "epoch and length must be whole numbers";
}

/** A run's messages query: `{ offset, limit, epoch? }`. */
export function messagePageProblem(r: unknown): Problem {
  if (!isObject(r)) return "the request must be an object";
  if (!isCount(r.offset) || !isCount(r.limit)) return "offset and limit must be whole numbers";
  return r.epoch === undefined || isCount(r.epoch) ? undefined : "epoch must be a whole number";
}

/** Thread queries whose argument is one object (`{ offset, limit }`, `{ fromSeq }`): its fields are clamped, never refused. */
export function objectArgumentProblem(r: unknown): Problem {
  return isObject(r) ? undefined : "the request must be an object";
}

/** A thread's transcript query: `{ length }`, or a page of it `{ length, offset, limit }`. */
export function transcriptRequestProblem(r: unknown): Problem {
  if (!isObject(r)) return "the request must be an object";
  if (!isCount(r.length)) return "length must be a whole number";
  if (r.offset === undefined && r.limit === undefined) return undefined;
  return isCount(r.offset) && isCount(r.limit) ? undefined : "offset and limit must be whole numbers";
}

/** The thread's send update: its id, kind and message are checked by the inbox. */
export function sendRequestProblem(r: unknown): Problem {
  return isObject(r) ? undefined : "the request must be an object";
}

/** The thread's resume update: nothing, or `{ prompt? }` (the prompt is checked by the controls). */
export function threadResumeRequestProblem(r: unknown): Problem {
  return r === undefined || isObject(r) ? undefined : "the request must be an object or nothing";
}

/** The thread's tool result update: which call; result and error are checked by the controls. */
export function toolResultRequestProblem(r: unknown): Problem {
  if (!isObject(r)) return "the request must be an object";
  return typeof r.toolCallId === "string" ? undefined : "toolCallId must be a string";
}

/** The thread's stream signal: a batch of deltas from the model activity. */
export function streamFlushProblem(f: unknown): Problem {
  if (!isObject(f)) return "the flush must be an object";
  if (typeof f.streamId !== "string") return "streamId must be a string";
  if (!isCount(f.attempt)) return "attempt must be a whole number";
  if (!Array.isArray(f.parts)) return "parts must be an array";
  if (f.first !== undefined || f.after !== undefined || f.reset !== undefined) {
    if (!isCount(f.first) || !isCount(f.after)) return "first and after must be whole numbers, together";
    if (f.reset !== undefined && f.reset !== true) return "reset must be true or absent";
  }
  for (const part of f.parts as unknown[]) {
    if (!isObject(part)) return "every part must be an object";
    if (part.kind === "text") {
      if (typeof part.text !== "string") return "a text part needs its text";
    } else if (part.kind === "tool-input") {
      if (typeof part.toolCallId !== "string" || typeof part.argumentsDelta !== "string" || (part.name !== undefined && typeof part.name !== "string")) {
        return "a tool-input part needs toolCallId and argumentsDelta strings";
      }
    } else {
      return "a part's kind must be text or tool-input";
    }
  }
  return undefined;
}

/** A sub-agent's deferral signal: which deferral, what became of it, until when. */
export function subAgentDeferralProblem(m: unknown): Problem {
  if (!isObject(m)) return "the message must be an object";
  if (typeof m.agentId !== "string" || typeof m.deferralId !== "string" || typeof m.expiresAt !== "string") return "agentId, deferralId and expiresAt must be strings";
  if (!["deferred", "resumed", "expired", "denied"].includes(m.status as string)) return "status must be deferred, resumed, expired or denied";
  if (Number.isNaN(Date.parse(m.expiresAt))) return "expiresAt must be a date";
  if (m.calls !== undefined && !(Array.isArray(m.calls) && m.calls.length <= MAX_SIGNALLED_CALLS && m.calls.every((c) => isObject(c) && typeof c.toolCallId === "string" && typeof c.toolName === "string" && typeof c.arguments === "string"))) {
    return `calls must be an array of at most ${MAX_SIGNALLED_CALLS} { toolCallId, toolName, arguments } strings`;
  }
  if (m.decided !== undefined && !(Array.isArray(m.decided) && m.decided.length <= MAX_SIGNALLED_CALLS && m.decided.every((id) => typeof id === "string"))) {
    return `decided must be an array of at most ${MAX_SIGNALLED_CALLS} call ids`;
  }
  return m.schema === undefined || isObject(m.schema) ? undefined : "schema must be an object";
}

/** The most calls a sub-agent's approval signal names: a step's calls are bounded far below (2,000 activities in flight). */
const MAX_SIGNALLED_CALLS = 2_000;
