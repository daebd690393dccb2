/**
 * The soak's model: a scripted responder that reads each request's transcript to pick the
 * next step (so any retry, replay or stop lands on the right one), and a fault plan that
 * breaks some requests the way providers do: 500s, 429s with retry-after, a request that
 * hangs past the call timeout, a connection cut mid-answer, tool arguments that are not
 * JSON, a slow first byte. A request's fault depends only on the seed, its conversation,
 * turn and attempt; from the third attempt on a request is always served, so a fault costs
 * retries, never the run.
 */
import type { ChatMessage } from "../../src/core/messages.js";
import type { ChatRequest, ScriptStep } from "../../src/testing/index.js";
import { RESULT } from "./agents.js";
import { draw } from "./random.js";

export const FAULT_KINDS = ["500", "429", "timeout", "cut", "malformed", "slow"] as const;
export type ModelFault = (typeof FAULT_KINDS)[number];

/** A run's prompt: its key in the scripted server, and what the responder reads its plan from. */
export const runPrompt = (runId: string, kind: "gated" | "deferral", amount: number): string => `pay ${amount} EUR (${kind}) for ${runId}`;
const RUN_PROMPT = /^pay (\d+) EUR \((gated|deferral)\) for (\S+)$/;

/** A thread's messages: `<threadId> m<k> <what>`, where what is plain, lookup or manager. */
export const threadMessage = (threadId: string, k: number, what: "plain" | "lookup" | "manager"): string => `${threadId} m${k} ${what}`;
const THREAD_MESSAGE = /^(\S+) m(\d+) (plain|lookup|manager)$/;
export const answerFor = (message: string): string => `answer to ${message}: ${"all is well with the account. ".repeat(8)}`;

export interface ModelPlan {
  seed: number;
  /** Share of first and second attempts that get a fault. */
  faultRate: number;
  /** How long a hanging request waits: past the agents' 15 s call timeout. */
  hangMs: number;
  /** Called for each fault served. */
  onFault(kind: ModelFault): void;
}

export function chaosResponder(plan: ModelPlan) {
  return (request: ChatRequest): ScriptStep => {
    const step = nextStep(request);
    if (request.attempt >= 2 || draw(plan.seed, "fault?", request.conversation, request.turn, request.attempt) >= plan.faultRate) return step;
    const kind = FAULT_KINDS[Math.floor(draw(plan.seed, "fault", request.conversation, request.turn, request.attempt) * FAULT_KINDS.length)]!;
    plan.onFault(kind);
    switch (kind) {
      case "500":
        return { ...step, errors: [500] };
      case "429":
        return { ...step, errors: [{ status: 429, retryAfterSeconds: 1 }] };
      case "timeout":
        return { ...step, delay: plan.hangMs };
      case "cut":
        return { ...step, dropAfterChars: 20 };
      case "slow":
        return { ...step, delay: "2s" };
      case "malformed":
        // Arguments that are not JSON: the model is told and asked again, nothing runs.
        return step.toolCalls ? { ...step, toolCalls: step.toolCalls.map((call) => ({ ...call, arguments: '{"amount": ' })) } : { ...step, errors: [500] };
    }
  };
}

function nextStep(request: ChatRequest): ScriptStep {
  const usage = { promptTokens: 100, completionTokens: 10 };
  const run = RUN_PROMPT.exec(request.conversation);
  if (run) {
    const [, amount, kind] = run;
    const results = toolResults(request.messages);
    const has = (tool: string, prefix?: string) => results.some((r) => r.tool === tool && (prefix === undefined || r.content.startsWith(prefix)));
    if (!has("lookup", RESULT.lookup)) return { toolCalls: [{ name: "lookup", arguments: { account: `acct-${amount}` } }], usage };
    if (kind === "gated") {
      // Sent, or rejected by the approver, ends it; an error (arguments it got wrong) asks again.
      if (!has("sendPayout", RESULT.payout) && !has("sendPayout", "Rejected")) return { toolCalls: [{ name: "sendPayout", arguments: { amount: Number(amount) } }], usage };
      return { text: has("sendPayout", RESULT.payout) ? "paid" : "rejected", usage };
    }
    const approval = results.find((r) => r.tool === "askApproval" && r.content.includes("approved"));
    if (!approval) return { toolCalls: [{ name: "askApproval", arguments: { amount: Number(amount) } }], usage };
    if (approval.content.includes("true") && !has("transfer", RESULT.transfer)) return { toolCalls: [{ name: "transfer", arguments: { amount: Number(amount) } }], usage };
    return { text: approval.content.includes("true") ? "transferred" : "not approved", usage };
  }
  // A thread: answer its last user message, after the tool it asks for.
  const lastUser = request.messages.map((m) => m.role).lastIndexOf("user");
  const message = request.messages[lastUser];
  const parsed = message?.role === "user" && typeof message.content === "string" ? THREAD_MESSAGE.exec(message.content) : null;
  if (!parsed) return { text: "I did not understand.", usage };
  const after = toolResults(request.messages.slice(lastUser));
  const what = parsed[3];
  if (what === "lookup" && !after.some((r) => r.tool === "lookup" && r.content.startsWith(RESULT.lookup))) {
    return { toolCalls: [{ name: "lookup", arguments: { account: `acct-${parsed[2]}` } }], usage };
  }
  if (what === "manager" && !after.some((r) => r.tool === "askManager" && r.content.includes("yes"))) {
    return { toolCalls: [{ name: "askManager", arguments: { question: `may I, for ${parsed[2]}?` } }], usage };
  }
  return { text: answerFor(message!.content as string), usage };
}

/** Each tool result with the name of the call it answers. */
function toolResults(messages: ChatMessage[]): Array<{ tool: string; content: string }> {
  const names = new Map<string, string>();
  const results: Array<{ tool: string; content: string }> = [];
  for (const m of messages) {
    if (m.role === "assistant") for (const call of m.tool_calls ?? []) names.set(call.id, call.function.name);
    if (m.role === "tool") results.push({ tool: names.get(m.tool_call_id) ?? "?", content: m.content });
  }
  return results;
}
