/**
 * What a step says of itself where people look: the Temporal UI's summary of a model call
 * (written by the workflow when it schedules the call) and the key a tool call's effects
 * are deduplicated by (handed to its handler). The console reads both back from history,
 * so writing and reading live here together.
 */

/**
 * The summary of a model call: `model gpt-4.1-mini · step 3`. A summary is user metadata on
 * the scheduling command, so it never affects replay; it is a payload, so a codec encrypts it
 * like any other.
 */
export function modelSummary(described: { model?: string }, step: number | undefined): string {
  return `model ${described.model ?? "(unnamed)"}${step !== undefined ? ` · step ${step}` : ""}`;
}

/** The model a `modelSummary` names (undefined for another text, or an unnamed model). */
export function modelOfSummary(summary: unknown): string | undefined {
  if (typeof summary !== "string") return undefined;
  const model = /^model (.+?)(?: · step \d+)?$/.exec(summary)?.[1];
  return model === undefined || model === "(unnamed)" ? undefined : model;
}

/**
 * `ctx.idempotencyKey` of a tool call: the run's or thread's workflow id and the call's id. A
 * reused id's later calls (`occurrence` 2, 3, …) get keys of their own: the model's choice of
 * ids must not merge two effects.
 */
export function toolIdempotencyKey(workflowId: string, toolCallId: string, occurrence?: number): string {
  return `${workflowId}/${toolCallId}${occurrence !== undefined && occurrence > 1 ? `#${occurrence}` : ""}`;
}
