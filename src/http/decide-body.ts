import { z } from "zod";
import { MAX_DECISION_TEXT } from "../core/approval.js";
import type { PermissionGrant } from "../core/approval-permissions.js";
import type { JsonObject, JsonValue } from "../core/json.js";
import { Id } from "./validate.js";

/** More decisions than any request can list calls (an agent's `maxToolCalls` is far lower). */
const MAX_DECISIONS = 1000;

const Text = z.string().max(MAX_DECISION_TEXT, `is longer than ${MAX_DECISION_TEXT} characters`);
// Passed through as parsed (no copy that could meet a `__proto__` key): the run checks it is plain JSON and fits the tool's schema (RC5049).
const Input = z.custom<JsonObject>((v) => typeof v === "object" && v !== null && !Array.isArray(v), "must be an object");
// A standing permission granted with an approval, passed through as parsed: the run checks its fields, size and schema (RC5049).
const Grant = z.custom<PermissionGrant>((v) => typeof v === "object" && v !== null && !Array.isArray(v), "must be an object { tool?, until?, match?, for? }");
const Fields = { approved: z.boolean(), input: Input.optional(), note: Text.optional(), reason: Text.optional(), grant: Grant.optional() };
// The tool's result as a person writes it, passed through as parsed: the run checks it is plain JSON and fits the tool's `approval.resultSchema` (RC5049).
const Respond = { respond: z.custom<JsonValue>((v) => v !== undefined && v !== null, "must be the tool's result (not null)"), note: Text.optional() };
// Neither kind drops the other's fields unseen: a decision that both approves and responds is refused, not read as one of them.
const Absent = z.never("belongs to the other kind of decision (approve or reject, or respond)").optional();
const decision = <T extends z.ZodRawShape>(extra: T) =>
  z.union([z.object({ ...extra, ...Fields, respond: Absent }), z.object({ ...extra, ...Respond, approved: Absent, input: Absent, reason: Absent, grant: Absent })]);

/**
 * The body of a decision by id: `decisions`, a list of `{ toolCallId, approved, input?,
 * note?, reason?, grant? }` or `{ toolCallId, respond, note? }` (a person's answer in the tool's
 * place), or the same keyed by call id, and `shown`, the request's `callFingerprint` as the
 * approver saw it (RC5058 when its calls changed since). Only the outline is checked here
 * (AI1040); which calls, how many, and whether an edit or a response fits its tool are the
 * run's to judge (RC5049, nothing spent).
 */
export const DecideBody = z.object({
  decisions: z.union([
    z.array(decision({ toolCallId: Id })).max(MAX_DECISIONS),
    z.record(Id, decision({})).refine((d) => Object.keys(d).length <= MAX_DECISIONS, `holds more than ${MAX_DECISIONS} decisions`),
  ]),
  shown: z.string().regex(/^[0-9a-f]{64}$/, "is not a callFingerprint").optional(),
});
