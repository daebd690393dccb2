import { Connection } from "@temporalio/client";
import { AgentClient, type ChatMessage, type JsonValue, type Principal } from "durable-agents";
declare function summariseOldTurns(messages: ChatMessage[]): ChatMessage[];
declare const principal: Principal;
declare const deferralId: string;
declare const token: string;
declare const payload: JsonValue;
declare const tomorrow: Date;
const agents = new AgentClient({ connection: await Connection.connect(), taskQueue: "agents" });
// ---cut---
import { isContextOverflow, replaceDeferredThread } from "durable-agents";

// `principal`: the caller the authorize hook is asked about (deferral.list per row, deferral.get, deferral.replace, deferral.deny)
const { deferrals, cursor } = await agents.deferrals.list({ status: "deferred", agentId: "payouts", expiringBefore: tomorrow, limit: 50, principal });
const record = await agents.deferrals.get({ deferralId, principal }); // meta, status, expiry, step state { messages, deferredToolCallId, turnsUsed, usage }, fingerprint, callFingerprint
const small = await agents.deferrals.getRecord({ deferralId, principal }); // without the step state (with the call's toolArguments and callFingerprint): its size does not grow with the transcript

// show the approver small.toolName and small.toolArguments, keep small.callFingerprint with what they answer
const shown = small.callFingerprint;
try {
  await agents.resume({ token, payload, shown });
} catch (err) {
  if (!isContextOverflow(err)) throw err; // AI1009: refused before the approval was spent
  const { won, deferral } = await replaceDeferredThread(agents.deferrals, { deferralId, rewrite: (messages) => summariseOldTurns(messages), principal });
  if (won) await agents.resume({ token, payload, shown }); // same token: it was not spent; a rewrite leaves the deferred call, so `shown` still holds
  else console.log("someone got there first:", deferral.status);
}
