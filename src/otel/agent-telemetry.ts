import {
  context,
  isSpanContextValid,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
} from "@opentelemetry/api";
import type { AgentToolCallOutput, ModelCallOutput } from "../core/contracts.js";
import type { DeferralEvent } from "../core/deferral-record.js";
import type { ChatMessage } from "../core/messages.js";
import type { CallTrace, StepTraceEnd, StepTraceRequest } from "../core/step-trace.js";
import { instruments, tracer } from "./instruments.js";
import { fromTraceparent, toTraceparent } from "./traceparent.js";

/** What the worker's telemetry may record beyond names, ids, counts and timings. */
export interface TelemetryOptions {
  /**
   * Put message content on the spans: the messages a model call sends and the answer
   * (`gen_ai.input.messages`, `gen_ai.output.messages`), a tool call's arguments and
   * result (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`). Default false:
   * prompts and tool results often hold personal data, and spans leave the worker
   * unencrypted, whatever codec protects the payloads in Temporal.
   */
  captureContent?: boolean;
}

/** Step spans a worker holds open at most; past it the oldest is closed as abandoned (its run moved to another worker). */
const MAX_OPEN_STEPS = 10_000;
/** Ended steps whose span context a worker remembers, for the next step's link. */
const MAX_ENDED_STEPS = 10_000;

/** One model call as the activity describes it to its span. */
export interface ChatCall {
  host: "run" | "thread";
  agentId: string;
  workflowId: string;
  model: string | undefined;
  attempt: number;
  trace?: CallTrace;
}

/** A model that was out during a call, as its span records it before the next one is asked. */
export interface FallbackFacts {
  model: string;
  /** What the failure was: an HTTP status (`HTTP503`), an error code or an error's name. */
  errorType: string;
  next: string;
}

/** One tool call as the activity describes it to its span. */
export interface ToolCallFacts {
  host: "run" | "thread";
  agentId: string;
  workflowId: string;
  toolName: string;
  toolCallId: string;
  arguments: string;
  attempt: number;
  /** A run's call: the id its deferral gets if it defers. */
  deferralId?: string;
  trace?: CallTrace;
}

/**
 * The worker's OpenTelemetry spans and metrics, through `@opentelemetry/api` alone: they
 * cost next to nothing until the application registers an SDK. Workflows make no OTel
 * calls: the worker running a run's workflow opens and closes its step spans (the first
 * from the call that describes the agent, a new run's first model call or a continued
 * run's `describeAgent` local activity, so the run's trace lands in history; the rest
 * through sinks, never twice on replay), and model and tool calls are spans of their
 * activities, children of their step's span where this worker holds it, else of the run's.
 */
export class AgentTelemetry {
  readonly #captureContent: boolean;
  readonly #open = new Map<string, Span>();
  readonly #ended = new Map<string, SpanContext>();

  constructor(options: TelemetryOptions = {}) {
    this.#captureContent = options.captureContent ?? false;
  }

  /**
   * Opens a step's `invoke_agent {agent}` span: under `parent` (the run's first step), or
   * under whatever span is current (Temporal's interceptors), or as a new trace. Returns its
   * `traceparent`, or undefined when nothing records it (no SDK: the run is not traced).
   */
  beginStep(agentId: string, request: StepTraceRequest): string | undefined {
    const parent = fromTraceparent(request.parent);
    const follows = request.follows;
    const link = follows && (this.#ended.get(follows.step) ?? this.#open.get(follows.step)?.spanContext() ?? fromTraceparent(follows.traceparent));
    const links: Link[] = link ? [{ context: link, attributes: { "durable_agents.link": "previous_step" } }] : [];
    const span = tracer().startSpan(
      `invoke_agent ${agentId}`,
      {
        kind: SpanKind.INTERNAL,
        links,
        attributes: {
          "gen_ai.operation.name": "invoke_agent",
          "gen_ai.agent.name": agentId,
          "gen_ai.agent.id": agentId,
          ...hostAttributes(request.host, request.workflowId),
        },
      },
      parent ? trace.setSpanContext(ROOT_CONTEXT, parent) : context.active(),
    );
    if (!span.isRecording()) {
      span.end();
      return undefined;
    }
    const cause = request.cause;
    if (cause && cause.event !== "continued") {
      span.addEvent(cause.event, cause.deferralId ? { "durable_agents.deferral.id": cause.deferralId } : {}, dateOf(cause.at));
    }
    this.#open.get(request.step)?.end();
    this.#open.set(request.step, span);
    if (this.#open.size > MAX_OPEN_STEPS) {
      const [oldest, abandoned] = this.#open.entries().next().value!;
      this.#open.delete(oldest);
      abandoned.setAttribute("durable_agents.step.abandoned", true);
      abandoned.end();
    }
    return toTraceparent(span.spanContext());
  }

  /** The `traceparent` of a step span this worker holds open: a retried first model call goes on in the span its first attempt opened. */
  openStep(step: string): string | undefined {
    const span = this.#open.get(step);
    return span ? toTraceparent(span.spanContext()) : undefined;
  }

  /** Closes a step's span, if this worker opened it (a run that moved to another worker mid-step leaves it to the bound). */
  endStep(end: StepTraceEnd): void {
    const span = this.#open.get(end.step);
    if (!span) return;
    this.#open.delete(end.step);
    this.#ended.set(end.step, span.spanContext());
    if (this.#ended.size > MAX_ENDED_STEPS) this.#ended.delete(this.#ended.keys().next().value!);
    span.setAttribute("durable_agents.step.outcome", end.outcome);
    if (end.turnsUsed !== undefined) span.setAttribute("durable_agents.turns_used", end.turnsUsed);
    if (end.outcome === "deferred") {
      span.addEvent("deferred", end.deferralId ? { "durable_agents.deferral.id": end.deferralId } : {});
      if (end.deferralId) span.setAttribute("durable_agents.deferral.id", end.deferralId);
    }
    if (end.outcome === "failed") {
      span.setStatus({ code: SpanStatusCode.ERROR, ...(end.errorType ? { message: end.errorType } : {}) });
      if (end.errorType) span.setAttribute("error.type", end.errorType);
    }
    span.end();
  }

  /** Deferral transitions as metrics (from the event sink: once per transition, never on replay). */
  deferralEvent(event: DeferralEvent): void {
    const m = instruments();
    const attributes: Attributes = event.agentId ? { "gen_ai.agent.name": event.agentId } : {};
    if (event.type === "deferred") return m.parked.add(1, attributes);
    m.parked.add(-1, attributes);
    if (event.type === "resumed") m.resumed.add(1, attributes);
    else if (event.type === "expired") m.expired.add(1, attributes);
    else m.denied.add(1, attributes);
  }

  /**
   * Runs a model call inside its `chat {model}` span (a child of the activity's span when
   * Temporal's interceptors made one in the run's trace, else of the step's), and records
   * its tokens and duration. `sent` reports the messages sent, for content capture.
   */
  async chat(call: ChatCall, work: (sent: (messages: ChatMessage[]) => void, fellBack: (failed: FallbackFacts) => void) => Promise<ModelCallOutput>): Promise<ModelCallOutput> {
    const base: Attributes = {
      "gen_ai.operation.name": "chat",
      "gen_ai.agent.name": call.agentId,
      ...(call.model ? { "gen_ai.request.model": call.model } : {}),
    };
    const span = tracer().startSpan(
      call.model ? `chat ${call.model}` : "chat",
      { kind: SpanKind.CLIENT, attributes: { ...base, ...hostAttributes(call.host, call.workflowId), "durable_agents.attempt": call.attempt } },
      this.#callParent(call.trace),
    );
    const started = performance.now();
    const sent = (messages: ChatMessage[]) => {
      if (this.#captureContent && span.isRecording()) span.setAttribute("gen_ai.input.messages", JSON.stringify(messages));
    };
    // The model that answers: the agent's, or the fallback asked after it was out.
    let answering = call.model;
    const fellBack = (failed: FallbackFacts) => {
      answering = failed.next;
      span.addEvent("durable_agents.model_fallback", { "gen_ai.request.model": failed.model, "error.type": failed.errorType, "durable_agents.next_model": failed.next });
    };
    let errorType: string | undefined;
    try {
      const out = await context.with(trace.setSpan(context.active(), span), () => work(sent, fellBack));
      const finish = out.message.tool_calls?.length ? "tool_calls" : "stop";
      span.setAttributes({
        "gen_ai.usage.input_tokens": out.usage.promptTokens,
        "gen_ai.usage.output_tokens": out.usage.completionTokens,
        "gen_ai.response.finish_reasons": [finish],
        ...(answering ? { "gen_ai.response.model": answering } : {}),
      });
      if (this.#captureContent) span.setAttribute("gen_ai.output.messages", JSON.stringify([out.message]));
      const m = instruments();
      const byModel = answering ? { ...base, "gen_ai.response.model": answering } : base;
      m.tokenUsage.record(out.usage.promptTokens, { ...byModel, "gen_ai.token.type": "input" });
      m.tokenUsage.record(out.usage.completionTokens, { ...byModel, "gen_ai.token.type": "output" });
      return out;
    } catch (err) {
      errorType = failed(span, err);
      throw err;
    } finally {
      instruments().duration.record((performance.now() - started) / 1000, { ...base, ...(errorType ? { "error.type": errorType } : {}) });
      span.end();
    }
  }

  /** Runs a tool call inside its `execute_tool {name}` span, and records its duration and outcome. */
  async tool(call: ToolCallFacts, work: () => Promise<AgentToolCallOutput>): Promise<AgentToolCallOutput> {
    const base: Attributes = { "gen_ai.operation.name": "execute_tool", "gen_ai.agent.name": call.agentId, "gen_ai.tool.name": call.toolName };
    const span = tracer().startSpan(
      `execute_tool ${call.toolName}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          ...base,
          ...hostAttributes(call.host, call.workflowId),
          "gen_ai.tool.call.id": call.toolCallId,
          "durable_agents.attempt": call.attempt,
          ...(this.#captureContent ? { "gen_ai.tool.call.arguments": call.arguments } : {}),
        },
      },
      this.#callParent(call.trace),
    );
    const started = performance.now();
    let outcome = "failed";
    let errorType: string | undefined;
    try {
      const out = await context.with(trace.setSpan(context.active(), span), work);
      if ("deferred" in out) {
        outcome = "deferred";
        if (call.deferralId) span.setAttribute("durable_agents.deferral.id", call.deferralId);
      } else if ("started" in out) {
        outcome = "started";
      } else {
        outcome = out.isError ? "error" : "success";
        if (this.#captureContent) span.setAttribute("gen_ai.tool.call.result", out.content);
      }
      return out;
    } catch (err) {
      errorType = failed(span, err);
      throw err;
    } finally {
      span.setAttribute("durable_agents.tool.outcome", outcome);
      instruments().duration.record((performance.now() - started) / 1000, {
        ...base,
        "durable_agents.tool.outcome": outcome,
        ...(errorType ? { "error.type": errorType } : {}),
      });
      span.end();
    }
  }

  /**
   * Where a model or tool call's span goes: under the activity's own span when Temporal's
   * OpenTelemetry interceptors made one in the run's trace (or the run is not traced), else
   * under its step's span when this worker holds it, else under the run's first step.
   */
  #callParent(call: CallTrace | undefined): Context {
    const active = context.active();
    if (!call) return active;
    const parent = fromTraceparent(call.parent);
    const current = trace.getSpanContext(active);
    if (parent && current && isSpanContextValid(current) && current.traceId === parent.traceId) return active;
    const step = typeof call.step === "string" ? this.#open.get(call.step) : undefined;
    if (step) return trace.setSpan(active, step);
    return parent ? trace.setSpanContext(active, parent) : active;
  }
}

function hostAttributes(host: "run" | "thread", workflowId: string): Attributes {
  return host === "thread" ? { "gen_ai.conversation.id": workflowId, "durable_agents.host": host } : { "durable_agents.run.id": workflowId, "durable_agents.host": host };
}

function failed(span: Span, err: unknown): string {
  const type = errorTypeOf(err);
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
  span.setAttribute("error.type", type);
  return type;
}

function errorTypeOf(err: unknown): string {
  if (err && typeof err === "object") {
    const { type, code, name } = err as { type?: unknown; code?: unknown; name?: unknown };
    if (typeof type === "string" && type) return type;
    if (typeof code === "string" && code) return code;
    if (typeof name === "string" && name) return name;
  }
  return "_OTHER";
}

function dateOf(iso: string): Date | undefined {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}
