/**
 * What the scripted model says when no OPENAI_API_KEY is set: enough to show streaming,
 * a tool call and an approval without a real model. It reads the conversation like a
 * model would: the last user message picks the reply, a tool result gets an answer.
 */
import type { Responder } from "../../src/testing/index.js";

const slow = { chunkDelayMs: 40 };

export const scriptedReplies: Responder = (request) => {
  const last = request.messages.at(-1);
  if (last?.role === "tool") {
    const content = String(last.content ?? "");
    if (content.includes('"approved":true')) return { ...slow, text: "Good news: the manager approved it. The refund is on its way and should reach you within 5 business days." };
    if (content.includes('"approved":false') || content.startsWith("Error:")) return { ...slow, text: "Sorry, the manager declined this one. Is there anything else I can do for you?" };
    const order = /"order":"([^"]*)"/.exec(content)?.[1] ?? "your order";
    return { ...slow, text: `Order ${order} has shipped with DHL and should arrive in 2 days.` };
  }
  const text = String(last?.content ?? "").toLowerCase();
  const order = /\b(\d{3,})\b/.exec(text)?.[1];
  if (/refund|discount|manager|approv/.test(text)) return { toolCalls: [{ name: "askManager", arguments: { question: `Approve a refund? The customer wrote: "${String(last?.content).slice(0, 200)}"` } }] };
  if (order) return { toolCalls: [{ name: "lookupOrder", arguments: { order } }] };
  return {
    ...slow,
    text:
      "Hello! I am a scripted stand-in for a model, streaming this answer a few characters at a time so you can watch it arrive. " +
      "Ask me about an order (give its number) or for a refund, which needs a manager's approval.",
  };
};
