/**
 * The hand-written baseline workflow: the usual agent loop with the thread held in the
 * workflow and passed whole into every model activity. No SDK code.
 */
import { defineSearchAttributeKey, SearchAttributeType } from "@temporalio/common";
import { allHandlersFinished, ApplicationFailure, condition, proxyActivities, setHandler, upsertSearchAttributes } from "@temporalio/workflow";
import type { ChatCompletionMessageParam, ChatCompletionToolMessageParam } from "openai/resources/chat/completions";
import type { BareActivities } from "./activities.js";
import { approveUpdate, chatTurnsUpdate, parkedUpdate, pingUpdate, sayUpdate } from "./messages.js";

const DeferralStatus = defineSearchAttributeKey("DeferralStatus", SearchAttributeType.KEYWORD);

export interface BareAgentInput {
  system: string;
  prompt: string;
  maxTurns: number;
}

export interface BareAgentResult {
  text: string;
  messages: ChatCompletionMessageParam[];
  turnsUsed: number;
}

// Same timeouts and retry policy as the SDK's model and tool calls, minus its heartbeat.
const { callModel, callTool } = proxyActivities<BareActivities>({
  startToCloseTimeout: "10m",
  retry: { initialInterval: "1s", backoffCoefficient: 2, maximumInterval: "1m" },
});

export async function bareAgent({ system, prompt, maxTurns }: BareAgentInput): Promise<BareAgentResult> {
  return agentLoop(opening(system, prompt), maxTurns, (call) => callTool({ call }));
}

const opening = (system: string, prompt: string): ChatCompletionMessageParam[] => [
  { role: "system", content: system },
  { role: "user", content: prompt },
];

/**
 * The chat baseline: the agent loop of {@link bareAgent} for the first prompt, then one more
 * loop per message `say` brings (the update answers once its turn is done), `turns` in all;
 * `chatTurns` answers once that many turns are done. No SDK code.
 */
export async function bareChat({ system, prompt, maxTurns, turns }: BareAgentInput & { turns: number }): Promise<number> {
  const messages = opening(system, prompt);
  const inbox: string[] = [];
  let done = 0;
  let running = true;
  setHandler(sayUpdate, async (text) => {
    inbox.push(text);
    const turn = done + (running ? 1 : 0) + inbox.length;
    await condition(() => done >= turn);
  });
  setHandler(chatTurnsUpdate, (count) => condition(() => done >= count));
  for (;;) {
    await agentLoop(messages, maxTurns, (call) => callTool({ call }));
    running = false;
    if (++done >= turns) {
      // The last turn's `say` answers from this same activation; the run closes after it.
      await condition(allHandlersFinished);
      return done;
    }
    await condition(() => inbox.length > 0);
    running = true;
    messages.push({ role: "user", content: inbox.shift()! });
  }
}

type FunctionCall = Parameters<BareActivities["callTool"]>[0]["call"];

/** The loop the agent baselines share: model, then every tool call of its answer at once, until it answers in text; `messages` grows in place. */
async function agentLoop(messages: ChatCompletionMessageParam[], maxTurns: number, runTool: (call: FunctionCall) => Promise<string>): Promise<BareAgentResult> {
  for (let turn = 1; turn <= maxTurns; turn++) {
    const reply = await callModel({ messages });
    messages.push(reply);
    const calls = (reply.tool_calls ?? []).filter((c) => c.type === "function");
    if (calls.length === 0) {
      return { text: typeof reply.content === "string" ? reply.content : "", messages, turnsUsed: turn };
    }
    const results = await Promise.all(
      calls.map(async (call): Promise<ChatCompletionToolMessageParam> => ({ role: "tool", tool_call_id: call.id, content: await runTool(call) })),
    );
    messages.push(...results);
  }
  throw ApplicationFailure.nonRetryable(`maxTurns ${maxTurns} reached`, "MaxTurns");
}

export interface BareResumeInput {
  system: string;
  prompt: string;
}

/**
 * The resume baseline: one model call whose tool call waits for a human, an update handler
 * that only sets the answer, and then, straight away, the next model call. No SDK code.
 */
export async function bareResume({ system, prompt }: BareResumeInput): Promise<string> {
  let parked = false;
  let answer: string | undefined;
  setHandler(approveUpdate, (payload) => {
    answer = payload;
  });
  setHandler(parkedUpdate, () => condition(() => parked));
  setHandler(pingUpdate, () => undefined);
  const messages: ChatCompletionMessageParam[] = [
    { role: "system", content: system },
    { role: "user", content: prompt },
  ];
  const reply = await callModel({ messages });
  messages.push(reply);
  const call = (reply.tool_calls ?? []).find((c) => c.type === "function");
  if (!call) throw ApplicationFailure.nonRetryable("expected a tool call to wait on", "NoToolCall");
  parked = true;
  await condition(() => answer !== undefined);
  messages.push({ role: "tool", tool_call_id: call.id, content: answer! });
  const last = await callModel({ messages });
  return typeof last.content === "string" ? last.content : "";
}

/**
 * The latency baseline: the agent loop of {@link bareAgent}, where the tool named
 * `approvalTool` waits for a human (the `approve` update) instead of running. No SDK code.
 */
export async function bareApproval({ system, prompt, maxTurns, approvalTool, inbox }: BareAgentInput & { approvalTool: string; inbox?: { ttlMs: number } }): Promise<string> {
  let parked = false;
  let answer: string | undefined;
  setHandler(approveUpdate, (payload) => {
    answer = payload;
  });
  setHandler(parkedUpdate, () => condition(() => parked));
  const result = await agentLoop(opening(system, prompt), maxTurns, async (call) => {
    if (call.function.name !== approvalTool) return callTool({ call });
    // What any durable approval needs at least: the tool that asks runs, the request can be
    // listed (a search attribute while it waits, cleared after), and it expires (a timer).
    if (inbox) {
      await callTool({ call });
      upsertSearchAttributes([{ key: DeferralStatus, value: "deferred" }]);
    }
    parked = true;
    if (inbox) {
      if (!(await condition(() => answer !== undefined, inbox.ttlMs))) throw ApplicationFailure.nonRetryable("the approval expired");
      upsertSearchAttributes([{ key: DeferralStatus, value: "resumed" }]);
    } else await condition(() => answer !== undefined);
    return answer!;
  });
  return result.text;
}
