import type { AssistantContent, LanguageModel, ModelMessage, ToolSet } from "ai";
import { isContextOverflow } from "../core/context-overflow.js";
import { ContextOverflowError } from "../core/errors/limits.js";
import type { AssistantMessage, ChatMessage, ToolCall, Usage } from "../core/messages.js";
import type { Model, ModelRequest, ModelResponse } from "../core/model.js";

type AiSdk = typeof import("ai");

/**
 * A provider's model as the AI SDK gives it: a `LanguageModel` (one model for every agent),
 * or a function of the agent's `model` name, such as a provider instance (`anthropic`,
 * `createOpenAICompatible({...})`), so each agent picks its model by name.
 */
export type AiSdkLanguageModel = LanguageModel | ((modelId: string) => LanguageModel);

/**
 * Any AI SDK provider (Anthropic, Google, Bedrock, Mistral, a local server) as the worker's
 * `Model`: tools, streaming deltas, usage, abort and the agent's model settings, with
 * errors classified as `openaiModel`'s are (429, 5xx and the network retried by the
 * activity honouring `retry-after`; 400/401/403/404 refused for good; a context overflow
 * AI1009). The AI SDK (`ai`) is an optional peer dependency, loaded on the first call.
 */
export function aiSdkModel(model: AiSdkLanguageModel): Model {
  let sdk: Promise<AiSdk> | undefined;
  return {
    async complete(request) {
      const ai = await (sdk ??= import("ai"));
      try {
        return request.onDelta ? await streamed(ai, model, request) : await unary(ai, model, request);
      } catch (err) {
        if (isContextOverflow(err)) throw new ContextOverflowError({ detail: (err as Error).message });
        throw err;
      }
    },
  };
}

function callOptions(ai: AiSdk, model: AiSdkLanguageModel, request: ModelRequest) {
  const { temperature, maxOutputTokens, stop, providerOptions } = request.settings ?? {};
  const tools: ToolSet = Object.fromEntries(
    // No `execute`: the SDK hands the calls back, and the run executes them as activities.
    request.tools.map((t) => [t.name, ai.tool({ description: t.description, inputSchema: ai.jsonSchema(t.parameters as never) })]),
  );
  // The system prompt goes where the SDK wants it; system messages later in a transcript
  // (a compaction summary, a seeded thread) are the SDK user's own and stay where they are.
  const [first, ...rest] = request.messages;
  const system = first?.role === "system" ? first.content : undefined;
  return {
    model: typeof model === "function" ? model(request.model) : model,
    ...(system !== undefined ? { system } : {}),
    messages: toModelMessages(system !== undefined ? rest : request.messages),
    allowSystemInMessages: true,
    ...(request.tools.length > 0 ? { tools } : {}),
    // The activity retries durably; retrying inside it would hide the provider's answer.
    maxRetries: 0,
    ...(request.signal ? { abortSignal: request.signal } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    ...(stop !== undefined ? { stopSequences: stop } : {}),
    ...(providerOptions !== undefined ? { providerOptions } : {}),
    // The SDK's structured output; tool calls still come back as calls. The worker validates the answer.
    ...(request.output ? { output: ai.Output.object({ schema: ai.jsonSchema(request.output.schema as never), name: request.output.name }) } : {}),
  };
}

async function unary(ai: AiSdk, model: AiSdkLanguageModel, request: ModelRequest): Promise<ModelResponse> {
  let result;
  try {
    result = await ai.generateText(callOptions(ai, model, request));
  } catch (err) {
    // An answer that does not fit the output schema is still an answer: the worker tells the model what to fix.
    if (request.output && ai.NoObjectGeneratedError.isInstance(err) && err.text !== undefined) {
      return { message: assistant(err.text, []), usage: usageOf(err.usage) };
    }
    throw err;
  }
  const calls = result.toolCalls.map((c) => toolCall(c.toolCallId, c.toolName, c.input));
  return { message: assistant(result.text === "" && calls.length > 0 ? null : result.text, calls), usage: usageOf(result.usage) };
}

async function streamed(ai: AiSdk, model: AiSdkLanguageModel, request: ModelRequest): Promise<ModelResponse> {
  // Errors arrive as stream parts and are thrown below, not logged by the SDK.
  const result = ai.streamText({ ...callOptions(ai, model, request), onError: () => undefined });
  let text = "";
  let sawText = false;
  const calls: ToolCall[] = [];
  let usage: Usage = usageOf(undefined);
  for await (const part of result.fullStream) {
    switch (part.type) {
      case "text-delta":
        sawText = true;
        text += part.text;
        request.onDelta?.({ kind: "text", text: part.text });
        break;
      case "tool-input-start":
        request.onDelta?.({ kind: "tool-input", toolCallId: part.id, name: part.toolName, argumentsDelta: "" });
        break;
      case "tool-input-delta":
        request.onDelta?.({ kind: "tool-input", toolCallId: part.id, argumentsDelta: part.delta });
        break;
      case "tool-call":
        calls.push(toolCall(part.toolCallId, part.toolName, part.input));
        break;
      case "finish":
        usage = usageOf(part.totalUsage);
        break;
      case "error":
        throw part.error;
      case "abort":
        throw request.signal?.reason ?? new Error("the model call was aborted");
      default:
        break;
    }
  }
  return { message: assistant(sawText ? text : null, calls), usage };
}

/**
 * The transcript (OpenAI's chat shape) as the AI SDK's messages. A tool result names its
 * tool, which the SDK needs and the chat shape leaves to the call it answers.
 */
export function toModelMessages(messages: ChatMessage[]): ModelMessage[] {
  const toolNames = new Map<string, string>();
  return messages.map((m): ModelMessage => {
    switch (m.role) {
      case "system":
        return { role: "system", content: m.content };
      case "user":
        return { role: "user", content: m.content };
      case "assistant": {
        const content: Exclude<AssistantContent, string> = m.content ? [{ type: "text", text: m.content }] : [];
        for (const call of m.tool_calls ?? []) {
          toolNames.set(call.id, call.function.name);
          content.push({ type: "tool-call", toolCallId: call.id, toolName: call.function.name, input: parseArguments(call.function.arguments) });
        }
        return { role: "assistant", content };
      }
      case "tool":
        return {
          role: "tool",
          content: [{ type: "tool-result", toolCallId: m.tool_call_id, toolName: toolNames.get(m.tool_call_id) ?? "unknown", output: { type: "text", value: m.content } }],
        };
    }
  });
}

/** Arguments the model wrote as JSON text; text that is not JSON goes back as it was, for the model to see its mistake. */
function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A call in the chat shape: arguments as the JSON text the tool's own validation reads. */
function toolCall(id: string, name: string, input: unknown): ToolCall {
  return { id, type: "function", function: { name, arguments: typeof input === "string" ? input : JSON.stringify(input ?? {}) } };
}

function assistant(content: string | null, toolCalls: ToolCall[]): AssistantMessage {
  return toolCalls.length > 0 ? { role: "assistant", content, tool_calls: toolCalls } : { role: "assistant", content };
}

function usageOf(u: { inputTokens?: number | undefined; outputTokens?: number | undefined; totalTokens?: number | undefined } | undefined): Usage {
  const promptTokens = u?.inputTokens ?? 0;
  const completionTokens = u?.outputTokens ?? 0;
  return { promptTokens, completionTokens, totalTokens: u?.totalTokens ?? promptTokens + completionTokens };
}
