import type { Duration } from "@temporalio/common";
import { durationMs } from "./duration.js";
import { DEFAULT_MODEL_CALLS } from "./contracts.js";
import { subAgentsOf } from "./sub-agents.js";
import { InvalidDefinitionError } from "./errors/setup.js";
import type { ToolContext, ToolDefinition } from "./define-tool.js";
import type { JsonObject, Principal } from "./json.js";
import type { ChatMessage } from "./messages.js";
import type { ModelSettings } from "./model.js";
import { plainJsonProblem } from "./json-check.js";
import { isSchema, type StandardSchema } from "./schema.js";
import { MAX_TOOL_CALLS_CEILING } from "./transcript-budget.js";
import { DEFAULT_COMPACTION_AT_ROOM } from "./compaction.js";

/** What a system prompt function and `authorize` learn about who the run acts for. */
export interface PrincipalInfo {
  principal: Principal | undefined;
  /** True when the principal came back from storage at a resume and was not re-verified. */
  restored: boolean;
}

/** What `onDenied` learns about the deferral someone denied (`deferrals.deny`). */
export interface DeniedDeferral {
  deferralId: string;
  toolName: string;
  /** The reason given to `deny()`. */
  reason: string;
  /** Who denied it, when `deny()` was given a principal. */
  by?: Principal;
  meta: JsonObject;
}

/** What `onExpired` learns about the deferral that ran out. */
export interface ExpiredDeferral {
  deferralId: string;
  toolName: string;
  expiresAt: string;
  meta: JsonObject;
}

/**
 * A schema of the agent's final answer: zod, or any Standard Schema library that can
 * describe itself as JSON Schema. `O` is what it parses to.
 */
export interface OutputSchema<O = unknown> extends StandardSchema {
  readonly "~standard": StandardSchema["~standard"] & { readonly types?: { readonly output: O } | undefined };
}

/** The most times a final answer that does not fit `output` goes back to the model. */
export const MAX_OUTPUT_RETRIES = 5;

export interface AgentOptions<O = undefined> extends ModelSettings {
  /** Stable id; runs refer to their agent by it, so renaming strands running and deferred runs. */
  id: string;
  /** Model name passed to the provider, e.g. `gpt-4.1-mini`. */
  model: string;
  /**
   * Models to ask, in order, when `model` is out: a call that fails with an outage (HTTP
   * 408, 429, 5xx, a timeout, a lost connection) is made again at once with the next name,
   * inside the same attempt; a content error (400, 401, 403, 404, 422, a context overflow)
   * is never handed on. When every model is out, the attempt fails and the call's retries
   * start again from `model`; the last attempt ends with AI1003 naming each model's failure.
   * The worker's `Model` gets each name as `request.model` (route names to providers in it,
   * e.g. `aiSdkModel((id) => ...)`). Which model answered is in `usage.fallback`, on the
   * `chat` span (`gen_ai.response.model`) and in the call's result in history. Not part of
   * the fingerprint: changing the list never strands a parked run.
   */
  fallbackModels?: string[];
  /**
   * The final answer's shape. The model is asked for JSON matching it (the provider's
   * structured output: `response_format` for `openaiModel`, the AI SDK's own for
   * `aiSdkModel`) when it answers without tool calls; the answer is parsed and validated on
   * the worker, and one that does not fit goes back to the model with what was wrong, up to
   * `outputRetries` times, then the run fails with AI1071. A run's result carries `output`,
   * typed from the schema. Part of the fingerprint (its JSON Schema).
   */
  output?: OutputSchema<O>;
  /** How often a final answer that does not fit `output` is sent back to be fixed. Default 2, at most 5. */
  outputRetries?: number;
  /**
   * System prompt. Prepared on the worker for every model call and never stored in history.
   * A function receives the principal (as data, `restored` after a resume).
   */
  system: string | ((info: PrincipalInfo) => string);
  /**
   * The version of what the definition fingerprint cannot see: a function system prompt's
   * meaning, or anything else the agent's behaviour depends on. A run deferred under one
   * version is denied (RC5048) when resumed under another; the same version resumes
   * whatever build (tsx, tsc, a bundler) produced the code. String prompts, the model and the
   * tools' names, descriptions and schemas are fingerprinted without it.
   */
  version?: string;
  /**
   * Who may run this agent when a tool dispatches it (`ctx.dispatch`). Only an exact `true`
   * allows. A restored principal is refused before this is asked (AI1011).
   */
  authorize?: (info: PrincipalInfo) => boolean | Promise<boolean>;
  /**
   * Rewrites the messages of each model call just before it is made (system prompt first):
   * trim old turns, redact, add context. What it returns is sent, never stored: the
   * transcript keeps what happened. Not fingerprinted: declare `version` when it changes.
   */
  transformMessages?: (messages: ChatMessage[], info: PrincipalInfo) => ChatMessage[];
  /** Tools the model may call. Names must be unique. */
  tools?: ToolDefinition<any, any>[];
  /**
   * Other agents the model may hand a task to, each as a tool named after its id taking
   * `{ prompt }`. A call runs the agent as a Temporal child workflow of the run (its own
   * run, transcript and history; no activity in between), and its final answer (`output`
   * as JSON, when it declares one) is the call's result. Its turns and tokens count in the
   * run's: it may use at most the turns the run has left, and cancelling the run cancels
   * it. A sub-agent may defer (`ctx.defer()`) and have tools that need approval: the run
   * parks with it (`run()` answers with the sub-agent's deferral), its token or decision
   * resumes both, and `resume()` answers with the run's next settled state; where the
   * run's own deferrals are refused (a `fanOut()` branch), so are its (RC5051). An agent that
   * declares `authorize` cannot be one (AI1001). Offered in runs; a thread's model is not
   * offered them. At most 16.
   */
  agents?: AgentDefinition<any>[];
  /** What a parent agent's model is told this agent does, when it is listed in another agent's `agents`. */
  description?: string;
  /** Upper bound on model calls for the whole run, deferrals included. Default 10. */
  maxTurns?: number;
  /**
   * The most tool calls one model answer may hold. Each call is a Temporal activity and a
   * workflow may have at most 2,000 in flight, so an answer over the limit is refused with
   * AI1017 (the run fails, or the thread's turn does) instead of wedging the workflow.
   * Fewer apply when the principal is large (every call carries it). Default 128, at most 512.
   */
  maxToolCalls?: number;
  /**
   * The model's context window in tokens. When set, `resume()` estimates the thread plus
   * payload and refuses with AI1009 before spending the approval if it would not fit.
   */
  contextWindow?: number;
  /**
   * Runs when a deferral of this agent (a handler's `ctx.defer()`) expires, instead of
   * failing the run with RC5047. An approval request's expiry does not call it: its calls
   * are not run and the model is told (docs/approvals.md). Return a value to hand it to the
   * model as the deferred call's result, or
   * `return ctx.defer({...})` to ask again with a fresh deferral (and a fresh token).
   */
  onExpired?: (expired: ExpiredDeferral, ctx: ToolContext) => unknown;
  /**
   * Runs when someone denies a deferral of this agent (`deferrals.deny`), instead of
   * telling the model "this request was denied by …: <reason>". Return a value to hand the
   * model as the deferred call's result, or `return ctx.defer({...})` to ask again (a fresh
   * deferral and token). A throw falls back to the default message.
   */
  onDenied?: (denied: DeniedDeferral, ctx: ToolContext) => unknown;
  /**
   * How a run schedules its model calls. `"activity"` (the default): each is an activity,
   * its result recorded when it ends. `"local"`: each is a local activity, run by the
   * worker that runs the run's workflow task, inside that task: a resume reaches the model
   * without another round trip through the server, and a step records about 1.2 KB less
   * history. The cost: an answer is recorded only when its workflow task completes, so a
   * worker that dies mid-step makes the model be asked again (tool calls stay activities,
   * recorded as they end); the call is sent the whole transcript each time (not stored);
   * a call longer than the workflow task timeout keeps that task open with heartbeats.
   * Threads always use activities (their answers stream). Not part of the fingerprint.
   */
  modelCalls?: "activity" | "local";
  /**
   * Threads of this agent compact their own memory instead of filling up (AI1018): before a
   * turn's model call, once the transcript passes `atRoom` of the thread's room or about
   * `maxInputTokens` of model input, the older turns are replaced by one summary message,
   * written by a summarizer model call (an activity). The newest `keepTurns` turns stay
   * verbatim; a tool call is never separated from its result, and nothing that still waits
   * (an approval, an async result) is summarised. The originals stay readable through
   * `threads.listMessages` (read back from the history of the run that compacted them, for
   * as long as the namespace retains it). Runs do not compact. Absent: threads never compact.
   */
  compaction?: CompactionOptions;
  /** Timeouts of each model and tool call (activities). */
  timeouts?: {
    /** Longest one call may take, retries aside. Default `"10m"`. */
    call?: Duration;
    /**
     * How soon a call on a worker that died is retried elsewhere. Calls heartbeat at 80% of
     * this while they run (each heartbeat is a billed action; cancellation reaches calls
     * another way, see `threads.stopLatency`). Default `"30s"`.
     */
    heartbeat?: Duration;
  };
}

/** `defineAgent({ compaction })`: when and how a thread of the agent compacts its older turns. */
export interface CompactionOptions {
  /** Newest turns kept verbatim (a turn starts at a user message; the turn being answered counts). At least 1. */
  keepTurns: number;
  /**
   * Compact once the transcript's estimated input tokens (JSON bytes / 4) reach this. Absent:
   * only the room (`atRoom`) triggers it.
   */
  maxInputTokens?: number;
  /** Share of the thread's room (`THREAD_TRANSCRIPT_BYTES`), above 0 and at most 0.9, at which it compacts. Default 0.75. */
  atRoom?: number;
  /** The model call that writes the summary. */
  summarizer?: {
    /** Its model. Default: the agent's model. */
    model?: string;
    /** Its system prompt (the instructions for the summary). Default: a prompt asking for the facts, decisions and open questions a continuation needs. */
    system?: string;
  };
}

/** An agent: what the worker runs and the client starts; `O` is what its `output` parses to. */
export interface AgentDefinition<O = unknown>
  extends Required<Omit<AgentOptions, "tools" | "agents" | "description" | "fallbackModels" | "output" | "outputRetries" | "timeouts" | "onExpired" | "onDenied" | "contextWindow" | "authorize" | "version" | "transformMessages" | "modelCalls" | "maxToolCalls" | "compaction" | keyof ModelSettings>> {
  /** The declared `maxToolCalls`; absent for the default. */
  maxToolCalls?: number;
  /** `compaction` as declared, checked, with its defaults; absent when the agent's threads never compact. */
  compaction?: ResolvedCompaction;
  /** Models asked in order when `model` is out; absent when none are declared. */
  fallbackModels?: string[];
  /** The final answer's schema, when declared. */
  output?: OutputSchema<O>;
  /** With `output`: how often an answer that does not fit goes back to the model. */
  outputRetries?: number;
  /** `"local"` when the agent's runs call the model in local activities; absent for activities. */
  modelCalls?: "local";
  authorize?: AgentOptions["authorize"];
  version?: string;
  transformMessages?: AgentOptions["transformMessages"];
  /** The sampling and provider settings it declared; absent when none. */
  settings?: ModelSettings;
  onExpired?: AgentOptions["onExpired"];
  onDenied?: AgentOptions["onDenied"];
  contextWindow?: number;
  /** The sub-agents it declares; absent when none. */
  agents?: AgentDefinition<any>[];
  description?: string;
  readonly kind: "agent";
  tools: ToolDefinition<any, any>[];
  timeouts: { callMs: number; heartbeatMs: number };
}

/** Defines an agent. Throws AI1001 on an empty id, duplicate tool names or a bad `maxTurns`. */
export function defineAgent<O = undefined>(options: AgentOptions<O>): AgentDefinition<O> {
  const subject = `agent "${String(options?.id)}"`;
  if (typeof options?.id !== "string" || options.id.trim() === "") {
    throw new InvalidDefinitionError({ subject, problem: "id must be a non-empty string" });
  }
  if (typeof options.model !== "string" || options.model === "") {
    throw new InvalidDefinitionError({ subject, problem: "model must be a non-empty string" });
  }
  if (typeof options.system !== "string" && typeof options.system !== "function") {
    throw new InvalidDefinitionError({ subject, problem: "system must be a string or a function of the principal" });
  }
  if (options.version !== undefined && (typeof options.version !== "string" || options.version === "")) {
    throw new InvalidDefinitionError({ subject, problem: "version must be a non-empty string" });
  }
  if (options.transformMessages !== undefined && typeof options.transformMessages !== "function") {
    throw new InvalidDefinitionError({ subject, problem: "transformMessages must be a function" });
  }
  const settings = modelSettingsOf(options, subject);
  const fallbackModels = fallbackModelsOf(options, subject);
  if (options.output !== undefined && !isSchema(options.output)) {
    throw new InvalidDefinitionError({ subject, problem: "output must be a schema (zod, or a Standard Schema library)" });
  }
  const outputRetries = options.outputRetries ?? 2;
  if (!Number.isInteger(outputRetries) || outputRetries < 0 || outputRetries > MAX_OUTPUT_RETRIES) {
    throw new InvalidDefinitionError({ subject, problem: `outputRetries must be a whole number from 0 to ${MAX_OUTPUT_RETRIES}` });
  }
  if (options.authorize !== undefined && typeof options.authorize !== "function") {
    throw new InvalidDefinitionError({ subject, problem: "authorize must be a function" });
  }
  if (options.modelCalls !== undefined && options.modelCalls !== "activity" && options.modelCalls !== "local") {
    throw new InvalidDefinitionError({ subject, problem: 'modelCalls must be "activity" or "local"' });
  }
  const maxTurns = options.maxTurns ?? 10;
  if (!Number.isInteger(maxTurns) || maxTurns < 1) {
    throw new InvalidDefinitionError({ subject, problem: "maxTurns must be a positive integer" });
  }
  if (options.maxToolCalls !== undefined && (!Number.isInteger(options.maxToolCalls) || options.maxToolCalls < 1 || options.maxToolCalls > MAX_TOOL_CALLS_CEILING)) {
    throw new InvalidDefinitionError({ subject, problem: `maxToolCalls must be a whole number from 1 to ${MAX_TOOL_CALLS_CEILING}` });
  }
  const tools = options.tools ?? [];
  const seen = new Set<string>();
  for (const tool of tools) {
    if (tool?.kind !== "tool") {
      throw new InvalidDefinitionError({ subject, problem: "every tool must come from defineTool()" });
    }
    if (seen.has(tool.name)) {
      throw new InvalidDefinitionError({ subject, problem: `two tools are named "${tool.name}"` });
    }
    seen.add(tool.name);
  }
  const agents = subAgentsOf(options, subject);
  if (options.description !== undefined && (typeof options.description !== "string" || options.description.trim() === "")) {
    throw new InvalidDefinitionError({ subject, problem: "description must be a non-empty string" });
  }
  const timeouts = { callMs: durationMs(options.timeouts?.call ?? DEFAULT_MODEL_CALLS.timeouts.startToCloseMs, `${subject} timeouts.call`, "10m"), heartbeatMs: durationMs(options.timeouts?.heartbeat ?? DEFAULT_MODEL_CALLS.timeouts.heartbeatMs, `${subject} timeouts.heartbeat`, "30s") };
  if (options.contextWindow !== undefined && (!Number.isInteger(options.contextWindow) || options.contextWindow < 1)) {
    throw new InvalidDefinitionError({ subject, problem: "contextWindow must be a positive integer (tokens)" });
  }
  const compaction = compactionOf(options.compaction, subject);
  if (options.onExpired !== undefined && typeof options.onExpired !== "function") {
    throw new InvalidDefinitionError({ subject, problem: "onExpired must be a function" });
  }
  if (options.onDenied !== undefined && typeof options.onDenied !== "function") {
    throw new InvalidDefinitionError({ subject, problem: "onDenied must be a function" });
  }
  return {
    kind: "agent",
    id: options.id,
    model: options.model,
    system: options.system,
    maxTurns,
    tools,
    timeouts,
    ...(options.onExpired ? { onExpired: options.onExpired } : {}),
    ...(options.onDenied ? { onDenied: options.onDenied } : {}),
    ...(options.contextWindow ? { contextWindow: options.contextWindow } : {}),
    ...(options.authorize ? { authorize: options.authorize } : {}),
    ...(options.version !== undefined ? { version: options.version } : {}),
    ...(options.transformMessages ? { transformMessages: options.transformMessages } : {}),
    ...(settings ? { settings } : {}),
    ...(options.modelCalls === "local" ? { modelCalls: "local" as const } : {}),
    ...(options.maxToolCalls !== undefined ? { maxToolCalls: options.maxToolCalls } : {}),
    ...(compaction ? { compaction } : {}),
    ...(fallbackModels ? { fallbackModels } : {}),
    ...(options.output ? { output: options.output, outputRetries } : {}),
    ...(agents ? { agents } : {}),
    ...(options.description !== undefined ? { description: options.description } : {}),
  };
}

/** The most fallback models an agent may list: each is one more request per failing attempt. */
export const MAX_FALLBACK_MODELS = 8;

/** The declared fallback models, checked; undefined when none. */
function fallbackModelsOf({ model, fallbackModels }: Pick<AgentOptions, "model" | "fallbackModels">, subject: string): string[] | undefined {
  if (fallbackModels === undefined) return undefined;
  const bad = (problem: string) => new InvalidDefinitionError({ subject, problem });
  if (!Array.isArray(fallbackModels) || fallbackModels.some((m) => typeof m !== "string" || m.trim() === "")) {
    throw bad("fallbackModels must be an array of non-empty model names");
  }
  if (fallbackModels.length > MAX_FALLBACK_MODELS) throw bad(`fallbackModels may list at most ${MAX_FALLBACK_MODELS} models`);
  if (new Set([model, ...fallbackModels]).size !== fallbackModels.length + 1) {
    throw bad("fallbackModels must not repeat a model (nor the agent's own model)");
  }
  return fallbackModels.length > 0 ? [...fallbackModels] : undefined;
}

/** The declared model settings, checked; undefined when the agent declares none. */
function modelSettingsOf(options: ModelSettings, subject: string): ModelSettings | undefined {
  const bad = (problem: string) => new InvalidDefinitionError({ subject, problem });
  const { temperature, maxOutputTokens, stop, providerOptions } = options;
  if (temperature !== undefined && (typeof temperature !== "number" || !Number.isFinite(temperature) || temperature < 0)) {
    throw bad("temperature must be a finite number ≥ 0");
  }
  if (maxOutputTokens !== undefined && (!Number.isInteger(maxOutputTokens) || maxOutputTokens < 1)) {
    throw bad("maxOutputTokens must be a positive integer");
  }
  if (stop !== undefined && (!Array.isArray(stop) || stop.some((s) => typeof s !== "string" || s === ""))) {
    throw bad("stop must be an array of non-empty strings");
  }
  if (providerOptions !== undefined) {
    const problem = typeof providerOptions === "object" && providerOptions !== null && !Array.isArray(providerOptions) ? plainJsonProblem(providerOptions) : { path: "$", problem: "not an object" };
    if (problem) throw bad(`providerOptions must be plain JSON keyed by provider (${problem.path}: ${problem.problem})`);
  }
  const settings: ModelSettings = {
    ...(temperature !== undefined ? { temperature } : {}),
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    ...(stop !== undefined ? { stop: [...stop] } : {}),
    ...(providerOptions !== undefined ? { providerOptions } : {}),
  };
  return Object.keys(settings).length > 0 ? settings : undefined;
}

/** `CompactionOptions` with its defaults. */
export interface ResolvedCompaction {
  keepTurns: number;
  atRoom: number;
  maxInputTokens?: number;
  summarizer: { model?: string; system?: string };
}

/** The declared compaction, checked; undefined when the agent declares none. */
function compactionOf(compaction: CompactionOptions | undefined, subject: string): ResolvedCompaction | undefined {
  if (compaction === undefined) return undefined;
  const bad = (problem: string) => new InvalidDefinitionError({ subject, problem: `compaction.${problem}` });
  if (typeof compaction !== "object" || compaction === null) throw new InvalidDefinitionError({ subject, problem: "compaction must be an object" });
  const { keepTurns, maxInputTokens, atRoom = DEFAULT_COMPACTION_AT_ROOM, summarizer = {} } = compaction;
  if (!Number.isInteger(keepTurns) || keepTurns < 1) throw bad("keepTurns must be a positive integer");
  if (maxInputTokens !== undefined && (!Number.isInteger(maxInputTokens) || maxInputTokens < 1)) throw bad("maxInputTokens must be a positive integer (tokens)");
  if (typeof atRoom !== "number" || !(atRoom > 0 && atRoom <= 0.9)) throw bad("atRoom must be a number above 0 and at most 0.9");
  if (typeof summarizer !== "object" || summarizer === null) throw bad("summarizer must be an object");
  if (summarizer.model !== undefined && (typeof summarizer.model !== "string" || summarizer.model === "")) throw bad("summarizer.model must be a non-empty string");
  if (summarizer.system !== undefined && (typeof summarizer.system !== "string" || summarizer.system.trim() === "")) throw bad("summarizer.system must be a non-empty string");
  return {
    keepTurns,
    atRoom,
    ...(maxInputTokens !== undefined ? { maxInputTokens } : {}),
    summarizer: { ...(summarizer.model !== undefined ? { model: summarizer.model } : {}), ...(summarizer.system !== undefined ? { system: summarizer.system } : {}) },
  };
}
