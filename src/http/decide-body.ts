import { z } from "zod";
import { MAX_DECISION_TEXT } from "../core/approval.js";
import type { JsonObject } from "../core/json.js";
import { Id } from "./validate.js";

/** More decisions than any request can list calls (an agent's `maxToolCalls` is far lower). */
const MAX_DECISIONS = 1000;

const Text = z.string().max(MAX_DECISION_TEXT, `is longer than ${MAX_DECISION_TEXT} characters`);
// Passed through as parsed (no copy that could meet a `__proto__` key): the run checks it is plain JSON and fits the tool's schema (RC5049).
const Input = z.custom<JsonObject>((v) => typeof v === "object" && v !== null && !Array.isArray(v), "must be an object");
const Fields = { approved: z.boolean(), input: Input.optional(), note: Text.optional(), reason: Text.optional() };

/**
 * The body of a decision by id: `decisions`, a list of `{ toolCallId, approved, input?,
 * note?, reason? }` or the same keyed by call id, and `shown`, the request's
 * `callFingerprint` as the approver saw it (RC5058 when its calls changed since). Only the
 * outline is checked here (AI1040); which calls, how many, and whether an edit fits its
 * tool are the run's to judge (RC5049, nothing spent).
 */
export const DecideBody = z.object({
  decisions: z.union([
    z.array(z.object({ toolCallId: Id, ...Fields })).max(MAX_DECISIONS),
    z.record(Id, z.object(Fields)).refine((d) => Object.keys(d).length <= MAX_DECISIONS, `holds more than ${MAX_DECISIONS} decisions`),
  ]),
  shown: z.string().regex(/^[0-9a-f]{64}$/, "is not a callFingerprint").optional(),
});
