import { z } from "zod";
import type { StandardSchema } from "../src/core/schema.js";
import { addUsage, type AssistantMessage, type ChatMessage, type Usage } from "../src/core/messages.js";
import type { AgentDefinition } from "../src/core/define-agent.js";
import { OutputInvalidError } from "../src/core/errors/runs.js";

export type CheckedOutput = { ok: true; value: unknown } | { ok: false; problem: string };

/**
 * Reads a final answer as the agent's `output`: JSON, or an answer holding one fenced JSON
 * block (models write them, with a line of prose around, even when asked for JSON only),
 * validated by the schema through `~standard`, so a schema from any copy of zod validates
 * the same way.
 */
export async function checkOutput(schema: StandardSchema, content: string | null): Promise<CheckedOutput> {
  const text = (content ?? "").trim();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    const block = fencedBlock(text);
    try {
      if (block === undefined) throw err;
      json = JSON.parse(block);
    } catch (fenced) {
      return { ok: false, problem: `the answer is not JSON (${(fenced as Error).message})` };
    }
  }
  const result = await schema["~standard"].validate(json);
  if (result.issues) return { ok: false, problem: z.prettifyError({ issues: result.issues } as never).slice(0, 2_000) };
  return { ok: true, value: result.value };
}

/** What the model is sent to fix an answer: its answer, then what was wrong with it. Sent, never stored. */
export function correction(messages: ChatMessage[], answer: AssistantMessage, problem: string): ChatMessage[] {
  return [
    ...messages,
    { role: "assistant", content: answer.content ?? "" },
    {
      role: "user",
      content: `Your final answer must be only JSON that matches the required schema, and it did not: ${problem}\nAnswer again with the corrected JSON only.`,
    },
  ];
}

/**
 * The one fenced block (```json or ```) of an answer that is not JSON itself, wherever it
 * stands: models write a line of prose before it, or after it. An answer with several such
 * blocks names no one answer: none is taken, and the answer goes back for correction.
 */
function fencedBlock(text: string): string | undefined {
  const blocks = [...text.matchAll(/```([\w-]*)[ \t]*\r?\n([\s\S]*?)\r?\n?```/g)].filter(([, lang]) => lang === "" || lang!.toLowerCase() === "json");
  return blocks.length === 1 ? blocks[0]![2]!.trim() : undefined;
}

/**
 * Asks the model and, when the agent declares `output` and the answer is final (no tool
 * calls), holds the answer to the schema: one that does not fit goes back with what was
 * wrong, up to `outputRetries` times, inside this call (the corrections are sent, never
 * stored: the transcript keeps the answer that fitted), then AI1071. Every answer's tokens
 * count. `restart` tells readers the streamed answer starts over.
 */
export async function answerFitting(
  agent: Pick<AgentDefinition, "id" | "output" | "outputRetries">,
  messages: ChatMessage[],
  ask: (messages: ChatMessage[]) => Promise<{ message: AssistantMessage; usage: Usage }>,
  restart: () => void,
): Promise<{ message: AssistantMessage; usage: Usage; output?: { value: unknown } }> {
  let sent = messages;
  let { message, usage } = await ask(sent);
  const schema = agent.output as StandardSchema | undefined;
  if (!schema) return { message, usage };
  for (let answers = 1; ; answers++) {
    if (message.tool_calls?.length) return { message, usage };
    const checked = await checkOutput(schema, message.content);
    if (checked.ok) return { message, usage, output: { value: checked.value } };
    if (answers > (agent.outputRetries ?? 0)) throw new OutputInvalidError({ agentId: agent.id, problem: checked.problem, answers });
    restart();
    sent = correction(sent, message, checked.problem);
    const next = await ask(sent);
    message = next.message;
    usage = addUsage(usage, next.usage);
  }
}
