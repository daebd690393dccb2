import type { ChatMessage } from "../core/messages.js";

// Loaded on first use: the encoder's tables are megabytes that most processes never need.
let tokenizer: Promise<typeof import("gpt-tokenizer")> | undefined;

/** Tokens every chat message costs beyond its content (role, separators), as OpenAI counts them. */
const PER_MESSAGE = 4;

/** Estimated prompt tokens of `messages` (o200k encoding; close for most current models). */
export async function estimateMessageTokens(messages: ChatMessage[]): Promise<number> {
  const { countTokens } = await (tokenizer ??= import("gpt-tokenizer"));
  let total = 0;
  for (const m of messages) {
    total += PER_MESSAGE + (m.content ? countTokens(m.content) : 0);
    if (m.role === "assistant" && m.tool_calls?.length) total += countTokens(JSON.stringify(m.tool_calls));
  }
  return total;
}

/** Estimated tokens of any text. */
export async function estimateTextTokens(text: string): Promise<number> {
  const { countTokens } = await (tokenizer ??= import("gpt-tokenizer"));
  return countTokens(text);
}
