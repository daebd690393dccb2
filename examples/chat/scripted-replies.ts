/**
 * What the scripted model says when no OPENAI_API_KEY is set: enough to show streaming,
 * a tool call and both kinds of approval without a real model. It reads the conversation
 * like a model would: the last user message picks the reply, a tool result gets an answer.
 */
import type { Responder } from "../../src/testing/index.js";
import { SUMMARIZER_SYSTEM } from "./agent.js";

const slow = { chunkDelay: 40 };

export const scriptedReplies: Responder = (request) => {
  // The thread compacting its older turns: a summary of what the customer asked.
  if (request.messages[0]?.content === SUMMARIZER_SYSTEM) {
    const asked = [...String(request.messages[1]?.content ?? "").matchAll(/^user: (.{0,60})/gm)].map((m) => `"${m[1]!.trim()}"`);
    return { text: `The customer asked ${asked.length} things so far: ${asked.join(", ") || "nothing yet"}. Each was answered.` };
  }
  const last = request.messages.at(-1);
  if (last?.role === "tool") {
    const content = String(last.content ?? "");
    if (content.startsWith("Rejected")) return { ...slow, text: "Understood: I did not do it. Is there anything else I can do for you?" };
    if (content.startsWith("Error:")) return { ...slow, text: "Sorry, that did not go through. Is there anything else I can do for you?" };
    if (content.includes('"exported":true')) return { ...slow, text: `Your order history is ready: ${/"file":"([^"]*)"/.exec(content)?.[1] ?? "the file"}.` };
    if (content.includes('"refunded":true')) return { ...slow, text: "Good news: the manager approved it. The refund is on its way and should reach you within 5 business days." };
    const order = /"order":"([^"]*)"/.exec(content)?.[1] ?? "your order";
    if (content.includes('"status":"cancelled"')) return { ...slow, text: `Order ${order} is cancelled.` };
    return { ...slow, text: `Order ${order} has shipped with DHL and should arrive in 2 days.` };
  }
  const text = String(last?.content ?? "").toLowerCase();
  const order = /\b(\d{3,})\b/.exec(text)?.[1];
  if (/export|history/.test(text)) return { toolCalls: [{ name: "exportOrderHistory", arguments: {} }] };
  if (/refund|money back/.test(text)) return { toolCalls: [{ name: "issueRefund", arguments: { order: order ?? "unknown", reason: String(last?.content).slice(0, 200) } }] };
  if (/cancel/.test(text) && order) return { toolCalls: [{ name: "cancelOrder", arguments: { order } }] };
  if (order) return { toolCalls: [{ name: "lookupOrder", arguments: { order } }] };
  return {
    ...slow,
    text:
      "Hello! I am a scripted stand-in for a model, streaming this answer a few characters at a time so you can watch it arrive. " +
      "Ask me about an order (give its number), to cancel one (you confirm it here), for a refund (a manager approves it), " +
      "or to export your order history (a long task: watch it go page by page).",
  };
};
