import { Context } from "@temporalio/activity";
import type { Client } from "@temporalio/client";
import type { AgentModelCallInput, ModelCallOutput } from "../src/core/contracts.js";
import { DefinitionChangedError, StepStateError } from "../src/core/errors/deferrals.js";
import { changedParts } from "../src/core/fingerprint.js";
import { assertPayloadFits, jsonBytes } from "../src/core/payload-size.js";
import { DEFAULT_MAX_TOOL_CALLS, MAX_CARRY_BYTES, toolCallLimit } from "../src/core/transcript-budget.js";
import { ToolCallsOverLimitError, TranscriptFullError } from "../src/core/errors/limits.js";
import type { AgentDefinition } from "../src/core/define-agent.js";
import type { ResolvedDeferralConfig } from "../src/deferral/config.js";
import { gateVerdict } from "./approval-gate.js";
import { countsOf, type ChatMessage } from "../src/core/messages.js";
import type { Model } from "../src/core/model.js";
import { AgentTelemetry, type FallbackFacts } from "../src/otel/agent-telemetry.js";
import type { ActivitySettings } from "./settings.js";
import type { AgentRegistry, PreparedDefinition } from "./agent-registry.js";
import { toModelFailure } from "./failures.js";
import { askInTurn, failureType } from "./model-fallback.js";
import { answerFitting } from "./structured-output.js";
import { withHeartbeat } from "./heartbeat.js";
import { assertModelResponse } from "./model-response.js";
import { outgoingMessages } from "./system-prompt.js";
import { deltaFlusher } from "./delta-publisher.js";
import { joinedAnswer } from "./sub-agent-stream.js";
import type { TranscriptSync } from "./transcript-sync.js";

export interface ModelCallDeps {
  registry: AgentRegistry;
  model: Model;
  client: Client;
  transcripts: TranscriptSync;
  settings: Pick<ActivitySettings, "stopLatencyMs" | "stream">;
  telemetry?: AgentTelemetry;
  /** Mints the tokens of approval requests. */
  deferral?: ResolvedDeferralConfig | undefined;
}

/** `callAgentModel`: one model call of a run or of a thread turn. */
export function createCallAgentModel({ registry, model, client, transcripts, settings, telemetry = new AgentTelemetry(), deferral }: ModelCallDeps) {
  /** Each call is a `chat {model}` span (a no-op without an OpenTelemetry SDK). */
  return function callAgentModel(input: AgentModelCallInput): Promise<ModelCallOutput> {
    const call = {
      host: input.host,
      agentId: input.agentId,
      workflowId: input.workflowId,
      model: registry.find(input.agentId)?.agent.model,
      attempt: Context.current().info.attempt,
      ...(input.trace !== undefined ? { trace: input.trace } : {}),
    };
    return telemetry.chat(call, (sent, fellBack) => complete(input, sent, fellBack));
  };

  /**
   * Its input holds only what the transcript gained since the host's previous call; the
   * rest comes from this worker's cache or a query. While the answer is written, a host
   * that asked for it gets the deltas in throttled batches (signals).
   */
  async function complete(input: AgentModelCallInput, sent: (messages: ChatMessage[]) => void, fellBack: (failed: FallbackFacts) => void): Promise<ModelCallOutput> {
    const ctx = Context.current();
    const flusher = settings.stream ? deltaFlusher(input, settings.stream, client, { runId: ctx.info.workflowExecution?.runId, attempt: ctx.info.attempt }) : undefined;
    // A thread's sub-agent: its answer is shown to the thread's readers too.
    const joined = joinedAnswer(input, settings.stream);
    try {
      const definition = definitionFor(registry, input);
      const { agent } = definition;
      // A run's or a thread's model may hand tasks to sub-agents.
      const toolSpecs = definition.agentSpecs.length > 0 ? [...definition.toolSpecs, ...definition.agentSpecs] : definition.toolSpecs;
      const transcript = await transcripts.load(input);
      const messages = outgoingMessages(agent, input, transcript);
      sent(messages);
      const ask = async (toSend: ChatMessage[]) => {
        const { response, answeredBy } = await askInTurn(agent, (name) =>
          model.complete({
            model: name,
            messages: toSend,
            tools: toolSpecs,
            ...(agent.settings ? { settings: agent.settings } : {}),
            ...(definition.outputSpec ? { output: definition.outputSpec } : {}),
            signal: ctx.cancellationSignal,
            ...(flusher || joined
              ? {
                  onDelta: (delta) => {
                    flusher?.push(delta);
                    joined?.push(delta);
                  },
                }
              : {}),
          }),
          (failed) => {
            flusher?.restart();
            joined?.restart();
            const errorType = failureType(failed.error);
            ctx.log.warn(`model ${failed.model} is out (${errorType}); asking ${failed.next}`, { agentId: input.agentId, workflowId: input.workflowId });
            fellBack({ model: failed.model, errorType, next: failed.next });
          },
        );
        assertModelResponse(response);
        const counts = countsOf(response.usage);
        return { message: response.message, usage: answeredBy === agent.model ? counts : { ...counts, fallback: { [answeredBy]: counts } } };
      };
      const { message, usage, output } = await withHeartbeat(settings.stopLatencyMs, () => answerFitting(agent, messages, ask, () => {
        flusher?.restart();
        joined?.restart();
      }), client);
      assertAnswerFits(agent, input, message);
      // Which calls wait for a person, decided before the host ever sees the answer.
      const gate = await gateVerdict(definition, input, message, deferral);
      // The answer is bounded above, and its request below MAX_APPROVAL_BYTES; together they
      // must still be a result Temporal records (a local activity's marker over 2 MB
      // terminates the run, an activity's result over it fails every attempt). An answer with
      // calls has no parsed output.
      if (gate) assertPayloadFits({ message, gate }, "The model's answer with its approval request", { limitBytes: MAX_CARRY_BYTES, hint: ANSWER_HINT });
      transcripts.remember(input, transcript, message);
      return { message, usage, ...(output !== undefined ? { output: output.value } : {}), ...(gate ? { gate } : {}) };
    } catch (err) {
      throw toModelFailure(err);
    } finally {
      await joined?.close();
      await flusher?.close();
    }
  }
}

const ANSWER_HINT = "Ask for a shorter answer (limit the model's output tokens), or have a tool write large output elsewhere.";

/**
 * Refuses, before the host ever sees it, an answer the host could not take: one that holds
 * more tool calls than the agent allows (each is an activity, and a workflow may have 2,000
 * in flight), one Temporal could not record, or one the transcript has no room for.
 */
function assertAnswerFits(agent: AgentDefinition, input: AgentModelCallInput, message: ModelCallOutput["message"]): void {
  const calls = message.tool_calls?.length ?? 0;
  const limit = toolCallLimit(agent.maxToolCalls, input.principal === undefined ? 0 : jsonBytes(input.principal));
  if (calls > limit) {
    throw new ToolCallsOverLimitError({ agentId: agent.id, calls, limit, ...(limit < (agent.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS) ? { maxToolCalls: agent.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS } : {}) });
  }
  // Temporal would fail the workflow over an answer it cannot record; a typed failure instead.
  assertPayloadFits(message, "The model's answer", { hint: ANSWER_HINT });
  const room = input.room;
  const bytes = room ? jsonBytes(message, room.leftBytes) : 0;
  if (room && bytes > room.leftBytes) {
    throw new TranscriptFullError({ host: input.host, id: input.workflowId, what: "the model's answer", bytes, leftBytes: room.leftBytes, limitBytes: room.limitBytes });
  }
}

/** The agent as registered now; after a run's resume it must be the one the run deferred with. */
function definitionFor(registry: AgentRegistry, input: AgentModelCallInput): PreparedDefinition {
  const check = input.definitionCheck;
  if (!check) return registry.get(input.agentId);
  let definition;
  try {
    definition = registry.get(input.agentId);
  } catch {
    throw new StepStateError({ agentId: input.agentId, reason: `no agent "${input.agentId}" is registered on the worker any more` });
  }
  if (!definition.acceptedHashes.has(check.definitionHash)) {
    const changed = changedParts(check.definitionParts, definition.definitionParts);
    throw new DefinitionChangedError({
      deferralId: check.deferralId,
      agentId: input.agentId,
      deferredHash: check.definitionHash,
      currentHash: definition.definitionHash,
      ...(changed ? { changed } : {}),
    });
  }
  return definition;
}
