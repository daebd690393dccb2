import type { ChatMessage } from "../core/messages.js";

// Loaded on first use: the encoder's tables are megabytes that most processes never need.
let tokenizer: Promise<typeof import("gpt-tokenizer/model/gpt-4o")> | undefined;

/**
 * Estimated prompt tokens of `messages` (gpt-4o's o200k encoding and chat format; close for most current models).
 * The tokenizer counts the chat framing (roles, separators) itself; tool calls, which it
 * does not model, count as the JSON the model wrote.
 */
export async function estimateMessageTokens(messages: ChatMessage[]): Promise<number> {
  const { countTokens } = await (tokenizer ??= import("gpt-tokenizer/model/gpt-4o"));
  return countTokens(
    messages.map((m) => ({
      role: m.role,
      content: (m.content ?? "") + (m.role === "assistant" && m.tool_calls?.length ? JSON.stringify(m.tool_calls) : ""),
    })),
  );
}

/** Estimated tokens of any text. */
export async function estimateTextTokens(text: string): Promise<number> {
  const { countTokens } = await (tokenizer ??= import("gpt-tokenizer/model/gpt-4o"));
  return countTokens(text);
}
