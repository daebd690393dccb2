/** Stored thread messages for the UI mapping's tests, all created at `at`. */
import type { ThreadMessage } from "../../src/index.js";

export const at = "2026-01-01T00:00:00.000Z";
export const user = (id: string, content: string): ThreadMessage => ({ id, role: "user", content, createdAt: at });
export const system = (id: string, content: string): ThreadMessage => ({ id, role: "system", content, createdAt: at });
/** An assistant message, with its tool calls as `[callId, toolName, argumentsJson]`. */
export const assistant = (id: string, content: string | null, calls: Array<[string, string, string]> = []): ThreadMessage => ({
  id,
  role: "assistant",
  content,
  ...(calls.length > 0 ? { tool_calls: calls.map(([cid, name, args]) => ({ id: cid, type: "function" as const, function: { name, arguments: args } })) } : {}),
  createdAt: at,
});
export const tool = (id: string, callId: string, content: string): ThreadMessage => ({ id, role: "tool", tool_call_id: callId, content, createdAt: at });
