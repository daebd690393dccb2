import type { AgentDefinition } from "../src/core/define-agent.js";
import type { ModelResponse } from "../src/core/model.js";
import { ApplicationFailure } from "@temporalio/common";
import { isOutage, ModelsOutError, toActivityFailure } from "./failures.js";

/** A model of the list that was out, as the next one takes over. */
export interface FailedModel {
  model: string;
  error: unknown;
  /** The model asked next. */
  next: string;
}

/**
 * Asks the agent's model and, while each is out, its `fallbackModels` in order, all inside
 * the one attempt: a provider outage costs no retry delay, no extra activity and no action.
 * A content error is never handed on (another model would refuse it too, or answer
 * something else); it ends the call, as without fallbacks. When the list runs out, the
 * attempt fails as the last model did (retried from the first model, or AI1003 when the
 * attempts are spent), its message naming every model's failure.
 */
export async function askInTurn(
  agent: Pick<AgentDefinition, "model" | "fallbackModels">,
  ask: (model: string) => Promise<ModelResponse>,
  onFallback: (failed: FailedModel) => void,
): Promise<{ response: ModelResponse; answeredBy: string }> {
  const models = [agent.model, ...(agent.fallbackModels ?? [])];
  const failures: Array<{ model: string; error: unknown }> = [];
  for (const [i, model] of models.entries()) {
    try {
      return { response: await ask(model), answeredBy: model };
    } catch (error) {
      const next = models[i + 1];
      if (next === undefined || !isOutage(error)) throw failures.length === 0 ? error : new ModelsOutError([...failures, { model, error }], error);
      failures.push({ model, error });
      onFallback({ model, error, next });
    }
  }
  throw new Error("unreachable: the last model answers or throws");
}

/** A short name for a failure, for logs and spans: `HTTP503`, a code, an error's name. */
export function failureType(error: unknown): string {
  const failure = toActivityFailure(error);
  if (failure instanceof ApplicationFailure && failure.type) return failure.type;
  return error instanceof Error ? error.name : typeof error;
}
