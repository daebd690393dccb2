import { Context } from "@temporalio/activity";
import { boundedReason, oversizedRequest, requestCalls, type ApprovalEscalationPlan, type GateCall, type GateVerdict } from "../src/core/approval.js";
import { permitting } from "../src/core/approval-permissions.js";
import type { AgentModelCallInput, ModelCallOutput } from "../src/core/contracts.js";
import type { ApprovalContext, ToolDefinition } from "../src/core/define-tool.js";
import { durationMs } from "../src/core/duration.js";
import { ApprovalPolicyFailedError, DeferralNotConfiguredError, InvalidDefinitionError } from "../src/core/errors/setup.js";
import { oneLine } from "../src/core/printable.js";
import type { JsonObject } from "../src/core/json.js";
import { plainJsonProblem } from "../src/core/json-check.js";
import type { ToolCall } from "../src/core/messages.js";
import { resumeDigest } from "../src/core/proof.js";
import type { ResolvedDeferralConfig } from "../src/deferral/config.js";
import { activityBinding, mintResumeToken } from "../src/deferral/token.js";
import type { PreparedDefinition } from "./agent-registry.js";
import { parseToolCall } from "./tool-arguments.js";

/**
 * Which calls of an answer wait for a decision, decided on the worker when the answer
 * arrives: every call of a tool whose `needsApproval` is true, and each call its function
 * does not clear. A call whose arguments do not parse waits for nothing: its tool call tells
 * the model, and no handler runs. The request's token is minted here, for the deferral id
 * the host sent, so the host parks with no other activity in between.
 */
export async function gateVerdict(
  definition: PreparedDefinition,
  input: AgentModelCallInput,
  message: ModelCallOutput["message"],
  deferral: ResolvedDeferralConfig | undefined,
): Promise<GateVerdict | undefined> {
  const gate = input.gate;
  if (!gate) return undefined;
  const calls: GateCall[] = [];
  const gated: ToolCall[] = [];
  const schemas: Record<string, JsonObject> = {};
  const resultSchemas: Record<string, JsonObject> = {};
  const cleared: string[] = [];
  const denied: Array<{ toolCallId: string; reason: string }> = [];
  const permitted: Array<{ toolCallId: string; permissionId: string }> = [];
  let ttlMs: number | undefined;
  const remindMs = new Set<number>();
  let escalate: ApprovalEscalationPlan | undefined;
  for (const call of message.tool_calls ?? []) {
    const tool = definition.tools.get(call.function.name);
    if (!tool?.needsApproval) continue;
    const parsed = await parseToolCall(definition, call);
    // Arguments that do not parse run nothing: the tool call tells the model.
    const answer = parsed.ok ? await policyAnswer(tool, parsed.args, approvalContext(input, call, tool.name)) : undefined;
    if (answer?.kind === "deny") {
      denied.push({ toolCallId: call.id, reason: answer.reason });
      continue;
    }
    if (!parsed.ok || answer?.kind === "allow") {
      cleared.push(call.id);
      continue;
    }
    // A standing permission the host holds lets the call go unasked (the workflow checks it again); a policy's denial still wins.
    const permit = permitting(input.permissions, call, input.principal, Date.now());
    if (permit) {
      permitted.push({ toolCallId: call.id, permissionId: permit.permissionId });
      continue;
    }
    const inputSchema = definition.toolSpecs.find((spec) => spec.name === tool.name)?.parameters as JsonObject | undefined;
    // Own property whatever the tool's name (`__proto__` would set the prototype instead).
    if (inputSchema) Object.defineProperty(schemas, tool.name, { value: inputSchema, enumerable: true, writable: true, configurable: true });
    const resultSchema = definition.resultSchemas.get(tool.name) as JsonObject | undefined;
    if (resultSchema) Object.defineProperty(resultSchemas, tool.name, { value: resultSchema, enumerable: true, writable: true, configurable: true });
    const meta = metaOf(tool, parsed.args);
    // The host has the call itself in the answer: the verdict adds only what it cannot know.
    calls.push({ toolCallId: call.id, ...(meta ? { meta } : {}) });
    gated.push(call);
    if (!deferral) throw new DeferralNotConfiguredError({ where: `tool "${tool.name}" (needsApproval)` });
    const ttl = tool.approval?.ttl !== undefined ? durationMs(tool.approval.ttl, `tool "${tool.name}" approval.ttl`) : deferral.defaultTtlMs;
    ttlMs = ttlMs === undefined ? ttl : Math.min(ttlMs, ttl);
    for (const before of tool.approval?.remind ?? []) remindMs.add(durationMs(before, `tool "${tool.name}" approval.remind`));
    const escalation = tool.approval?.escalate;
    if (escalation) {
      const afterMs = durationMs(escalation.after, `tool "${tool.name}" approval.escalate.after`);
      if (!escalate || afterMs < escalate.afterMs) escalate = { afterMs, requires: [...escalation.requires] };
    }
  }
  const refused = { ...(denied.length > 0 ? { denied } : {}), ...(permitted.length > 0 ? { permitted } : {}) };
  if (calls.length === 0 || !deferral) return cleared.length > 0 || denied.length > 0 || permitted.length > 0 ? { calls, cleared, ...refused } : undefined;
  // The request as its record will hold it must fit wherever it is copied: refused here, before the host sees the answer.
  const verdict: GateVerdict = {
    calls,
    cleared,
    ...refused,
    ...(Object.keys(schemas).length > 0 ? { schemas } : {}),
    ...(Object.keys(resultSchemas).length > 0 ? { resultSchemas } : {}),
  };
  const oversized = oversizedRequest(requestCalls(gated, verdict));
  if (oversized) throw oversized;
  const token = approvalToken(definition, input, calls[0]!.toolCallId, deferral);
  // What could never happen before the request expires is left out (a reminder or an escalation past the worker's default TTL).
  const reminders = [...remindMs].filter((ms) => ms < ttlMs!).sort((a, b) => b - a);
  return {
    ...verdict,
    digest: resumeDigest(token),
    ttlMs: ttlMs!,
    ...(reminders.length > 0 ? { remindMs: reminders } : {}),
    ...(escalate && escalate.afterMs < ttlMs! ? { escalate } : {}),
  };
}

/**
 * The token of an approval request: a resume token for its deferral, bound to the request's
 * first call and to the host's first execution. Deterministic, so whoever holds the secret
 * (the notifying worker, a client deciding from the inbox) mints the same one.
 */
export function approvalToken(definition: PreparedDefinition, input: { gate?: { deferralId: string; firstRunId?: string } }, firstCallId: string, deferral: ResolvedDeferralConfig): string {
  const binding = activityBinding(Context.current().info);
  const firstRunId = input.gate?.firstRunId;
  return mintResumeToken(deferral.secret, input.gate!.deferralId, firstCallId, {
    window: definition.agent.contextWindow !== undefined,
    binding: binding && firstRunId ? { ...binding, firstRunId } : binding,
  });
}

/** What a tool's `needsApproval` says of one parsed call. */
export type PolicyAnswer = { kind: "allow" } | { kind: "ask" } | { kind: "deny"; reason: string };

/**
 * What `needsApproval` says of a parsed call of a gated tool: `true` asks; a policy's answer
 * is read strictly, since nobody can tell whether a call may run when it throws or answers
 * something else (AI1035). A denial's reason is bounded (`MAX_DECISION_TEXT`).
 */
export async function policyAnswer(tool: ToolDefinition, args: unknown, ctx: ApprovalContext): Promise<PolicyAnswer> {
  const rule = tool.needsApproval;
  if (typeof rule !== "function") return rule === true ? { kind: "ask" } : { kind: "allow" };
  const failed = (problem: string) => new ApprovalPolicyFailedError({ toolName: tool.name, toolCallId: ctx.toolCallId, problem });
  let answer: unknown;
  try {
    answer = await rule(args as never, ctx);
  } catch (err) {
    // Whatever was thrown (an object without a prototype cannot even be made a string) is only described.
    throw failed(`threw${err instanceof Error ? `: ${oneLine(String(err.message).slice(0, 500))}` : ` ${describe(err)}`}`);
  }
  if (answer === true || answer === "ask") return { kind: "ask" };
  if (answer === false || answer === "allow") return { kind: "allow" };
  let reason: unknown;
  try {
    reason = typeof answer === "object" && answer !== null && !Array.isArray(answer) && Object.prototype.hasOwnProperty.call(answer, "deny") ? (answer as { deny: unknown }).deny : undefined;
  } catch {
    // A proxy that throws when read is no answer either.
    throw failed("answered something that cannot be read");
  }
  if (typeof reason === "string" && reason.trim() !== "") return { kind: "deny", reason: boundedReason(reason) };
  throw failed(reason === undefined ? `answered ${describe(answer)}` : `answered a denial without a reason (deny must be a non-empty string, not ${describe(reason)})`);
}

/** A policy's wrong answer, short enough for an error message. */
function describe(value: unknown): string {
  if (value === undefined) return "nothing (undefined)";
  if (typeof value === "function" || typeof value === "symbol" || typeof value === "bigint") return `a ${typeof value}`;
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = `a ${typeof value}`;
  }
  return oneLine(text.length > 120 ? `${text.slice(0, 120)}…` : text);
}

function approvalContext(input: AgentModelCallInput, call: ToolCall, toolName: string): ApprovalContext {
  return {
    agentId: input.agentId,
    toolName,
    toolCallId: call.id,
    principal: input.principal,
    host: input.host,
    runId: input.workflowId,
    ...(input.host === "thread" ? { threadId: input.workflowId } : {}),
  };
}

/**
 * The tool's `approval.meta` for this call. A function that throws, or returns what is not
 * a plain JSON object, is the tool's mistake (AI1001): an authorize hook routing on meta
 * must never see a request without it.
 */
function metaOf(tool: ToolDefinition, args: unknown): JsonObject | undefined {
  const meta = tool.approval?.meta;
  if (meta === undefined) return undefined;
  const subject = `tool "${tool.name}"`;
  let value: unknown;
  try {
    value = typeof meta === "function" ? meta(args as never) : meta;
  } catch (err) {
    throw new InvalidDefinitionError({ subject, problem: `approval.meta threw: ${err instanceof Error ? err.message : String(err)}` });
  }
  const problem = typeof value === "object" && value !== null && !Array.isArray(value) ? plainJsonProblem(value) : { path: "$", problem: "not an object" };
  if (problem) throw new InvalidDefinitionError({ subject, problem: `approval.meta must give a plain JSON object (${problem.path}: ${problem.problem})` });
  return value as JsonObject;
}
