import OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { ContextOverflowError } from "../core/errors/limits.js";
import { isContextOverflow } from "../core/context-overflow.js";
import type { AssistantMessage, ToolCall, Usage } from "../core/messages.js";
import type { Model, ModelRequest, ModelResponse } from "../core/model.js";

export interface OpenAIModelOptions {
  /** Any OpenAI-compatible endpoint, e.g. `http://localhost:11434/v1`. Defaults to OpenAI's. */
  baseURL?: string;
  /** Defaults to `OPENAI_API_KEY`. */
  apiKey?: string;
  /** A preconfigured client instead of baseURL/apiKey. */
  client?: OpenAI;
  /**
   * Retries inside one call. Default 0: the model call is a Temporal activity, whose
   * retry policy retries durably and honours `retry-after`.
   */
  maxRetries?: number;
}

/** The built-in model adapter: chat completions with tools, streaming when asked. */
export function openaiModel(options: OpenAIModelOptions = {}): Model {
  const client =
    options.client ??
    new OpenAI({
      baseURL: options.baseURL,
      apiKey: options.apiKey ?? process.env.OPENAI_API_KEY ?? "unset",
      maxRetries: options.maxRetries ?? 0,
    });
  return {
    async complete(request) {
      try {
        return request.onDelta ? await streamed(client, request) : await unary(client, request);
      } catch (err) {
        if (isContextOverflow(err)) {
          throw new ContextOverflowError({ detail: (err as Error).message });
        }
        throw err;
      }
    },
  };
}

function params(request: ModelRequest) {
  const tools: ChatCompletionTool[] = request.tools.map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
  const settings = request.settings;
  return {
    // Provider options first: the SDK's own fields are not theirs to override.
    ...(settings?.providerOptions?.openai ?? {}),
    model: request.model,
    messages: request.messages as ChatCompletionMessageParam[],
    ...(tools.length > 0 ? { tools } : {}),
    ...(settings?.temperature !== undefined ? { temperature: settings.temperature } : {}),
    // `max_tokens`, which every OpenAI-compatible server reads; OpenAI's reasoning models
    // want `max_completion_tokens`, which `providerOptions.openai` can set.
    ...(settings?.maxOutputTokens !== undefined ? { max_tokens: settings.maxOutputTokens } : {}),
    ...(settings?.stop !== undefined ? { stop: settings.stop } : {}),
    // Not strict: strict mode refuses schemas with optional fields or open objects, and the worker validates anyway.
    ...(request.output ? { response_format: { type: "json_schema" as const, json_schema: { name: request.output.name, schema: request.output.schema, strict: false } } } : {}),
  };
}

async function unary(client: OpenAI, request: ModelRequest): Promise<ModelResponse> {
  const res = await client.chat.completions.create({ ...params(request), stream: false }, { signal: request.signal });
  const choice = res.choices[0];
  if (!choice) throw new Error("The model returned no choices");
  const toolCalls = (choice.message.tool_calls ?? []).flatMap((tc): ToolCall[] =>
    tc.type === "function"
      ? [{ id: tc.id, type: "function", function: { name: tc.function.name, arguments: tc.function.arguments } }]
      : [],
  );
  return { message: assistant(choice.message.content ?? null, toolCalls), usage: usageOf(res.usage) };
}

async function streamed(client: OpenAI, request: ModelRequest): Promise<ModelResponse> {
  const stream = await client.chat.completions.create(
    { ...params(request), stream: true, stream_options: { include_usage: true } },
    { signal: request.signal },
  );
  let text = "";
  let sawText = false;
  // By the provider's index, in a Map: an index is the provider's to choose, and a plain
  // array or object would hand `calls["constructor"]` the Array function.
  const calls = new Map<number, ToolCall>();
  let usage: Usage = usageOf(undefined);
  for await (const chunk of stream) {
    if (chunk.usage) usage = usageOf(chunk.usage);
    const delta = chunk.choices[0]?.delta;
    if (!delta) continue;
    if (delta.content) {
      sawText = true;
      text += delta.content;
      request.onDelta?.({ kind: "text", text: delta.content });
    }
    for (const tc of delta.tool_calls ?? []) {
      const index: unknown = tc.index;
      if (typeof index !== "number" || !Number.isSafeInteger(index) || index < 0) {
        throw new Error(`The model streamed a tool call with index ${JSON.stringify(index)}, not a whole number`);
      }
      let call = calls.get(index);
      if (!call) {
        call = { id: "", type: "function", function: { name: "", arguments: "" } };
        calls.set(index, call);
      }
      if (tc.id) call.id = tc.id;
      if (tc.function?.name) call.function.name += tc.function.name;
      if (tc.function?.arguments) call.function.arguments += tc.function.arguments;
      request.onDelta?.({
        kind: "tool-input",
        toolCallId: call.id,
        ...(tc.function?.name ? { name: tc.function.name } : {}),
        argumentsDelta: tc.function?.arguments ?? "",
      });
    }
  }
  // The client ends the stream quietly when it is aborted: what came so far is no answer.
  if (request.signal?.aborted) throw request.signal.reason ?? new Error("the model call was aborted");
  const ordered = [...calls].sort(([a], [b]) => a - b).map(([, call]) => call);
  return { message: assistant(sawText ? text : null, ordered), usage };
}

function assistant(content: string | null, toolCalls: ToolCall[]): AssistantMessage {
  return toolCalls.length > 0 ? { role: "assistant", content, tool_calls: toolCalls } : { role: "assistant", content };
}

function usageOf(u: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number } | undefined | null): Usage {
  const promptTokens = u?.prompt_tokens ?? 0;
  const completionTokens = u?.completion_tokens ?? 0;
  return { promptTokens, completionTokens, totalTokens: u?.total_tokens ?? promptTokens + completionTokens };
}
