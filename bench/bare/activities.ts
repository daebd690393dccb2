/**
 * The hand-written baseline's activities: what a team writes without the SDK. The model
 * activity gets the whole thread as its input (so Temporal records it on every call) and
 * calls the model through the plain `openai` client; the tool activity runs a handler.
 */
import OpenAI from "openai";
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";

export interface BareTool {
  spec: ChatCompletionTool;
  handler: (args: never) => Promise<string> | string;
}

export interface BareActivitiesOptions {
  baseURL: string;
  model: string;
  tools: BareTool[];
}

export interface BareActivities {
  callModel(input: { messages: ChatCompletionMessageParam[] }): Promise<ChatCompletionAssistantMessageParam>;
  callTool(input: { call: ChatCompletionMessageFunctionToolCall }): Promise<string>;
}

export function createBareActivities({ baseURL, model, tools }: BareActivitiesOptions): BareActivities {
  // No client-side retries, like the SDK's model: Temporal's activity retry is the retry.
  const openai = new OpenAI({ baseURL, apiKey: "bench", maxRetries: 0 });
  const specs = tools.map((t) => t.spec);
  const handlers = new Map(tools.flatMap((t) => (t.spec.type === "function" ? [[t.spec.function.name, t.handler] as const] : [])));
  return {
    async callModel({ messages }) {
      const res = await openai.chat.completions.create({ model, messages, tools: specs });
      const message = res.choices[0]?.message;
      if (!message) throw new Error("The model returned no choices");
      const calls = (message.tool_calls ?? []).filter((c) => c.type === "function");
      return { role: "assistant", content: message.content, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
    },
    async callTool({ call }) {
      const handler = handlers.get(call.function.name);
      if (!handler) return `Error: unknown tool "${call.function.name}"`;
      return handler(JSON.parse(call.function.arguments) as never);
    },
  };
}
