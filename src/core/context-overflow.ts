import { ContextOverflowError } from "./errors/limits.js";

const OVERFLOW_CODES = new Set(["context_length_exceeded", "string_above_max_length"]);

// Wording of OpenAI-compatible servers that do not send OpenAI's error codes
// (vLLM, llama.cpp, Ollama, LiteLLM, Azure, Anthropic-compatible gateways).
const OVERFLOW_WORDING = [
  /maximum context length/i,
  /context length exceeded/i,
  /context[_ ]window/i,
  /exceeds? (the )?(model'?s? )?(maximum |available )?context/i,
  /prompt is too long/i,
  /input is too long/i,
  /too many tokens/i,
  /requested \d+ tokens.*(context|limit)/i,
];

/** True when `err` says the prompt did not fit the model's context window (AI1009 or a provider error). */
export function isContextOverflow(err: unknown): boolean {
  if (ContextOverflowError.isInstance(err)) return true;
  if (typeof err !== "object" || err === null) return false;
  const e = err as { code?: unknown; error?: { code?: unknown }; message?: unknown; type?: unknown; status?: unknown; statusCode?: unknown };
  // Throttling is never an overflow, whatever its wording ("Too many tokens, please wait"):
  // it is retried, while an overflow is refused for good. (`statusCode`: the AI SDK's errors.)
  if (e.status === 429 || e.statusCode === 429) return false;
  const code = e.code ?? e.error?.code;
  if (typeof code === "string" && OVERFLOW_CODES.has(code)) return true;
  if (e.type === ContextOverflowError.code) return true;
  return typeof e.message === "string" && OVERFLOW_WORDING.some((re) => re.test(e.message as string));
}
