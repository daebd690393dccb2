/**
 * "Resume latency": from `resume()` to the next model call, against a bare update round
 * trip that leads to the next model call, on the same server, model server and process.
 *
 * SDK: a run defers from a tool's `ctx.defer()`; t0 is just before `agents.resume()`, t1 is
 * when the scripted model server receives the run's next chat-completions request.
 * Bare: a hand-written workflow (bench/bare/) parked on a flag; t0 is just before
 * `executeUpdate(approve)`, whose handler only sets the flag; the workflow then calls the
 * same model activity as the bare agent loop, and t1 is when that request arrives.
 * Client and activity interceptors timestamp each leg, so a miss says where the time went.
 * A third, diagnostic path sends the SDK's own resume update straight to the run, without
 * the client's deferral query first: what `resume()` would cost without that round trip.
 * OTel on: the SDK path again with a real OpenTelemetry SDK registered in the process (a
 * tracer provider with a batch processor, a meter provider with a periodic reader, both
 * into memory) for the whole of each such sample, park included: `otelRatio` is its median
 * against the plain SDK path's (target 1.10).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { context, metrics, trace as otelTrace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { setTimeout as sleep } from "node:timers/promises";
import { Client, type WorkflowClientInterceptor } from "@temporalio/client";
import proto from "@temporalio/proto";
import type { ActivityInterceptorsFactory } from "@temporalio/worker";
import { z } from "zod";
import { defineAgent, defineTool } from "../src/index.js";
import type { Responder } from "../src/testing/index.js";
import { resumeUpdate } from "../src/workflow.js";
import { proofOf } from "../src/core/proof.js";
import { verifyResumeToken } from "../src/deferral/token.js";
import type { BareTool } from "./bare/activities.js";
import { approveUpdate, parkedUpdate, pingUpdate } from "./bare/messages.js";
import type { bareResume } from "./bare/workflows.js";
import { envInt, median, MODEL, percentile, progress, prompt, round, startBareWorker, startBenchStack, USAGE } from "./lib.js";

const { EventType } = proto.temporal.api.enums.v1;

const SAMPLES = envInt("RESUME_SAMPLES", 30);
const WARMUP = 3;
/** Quiet time between parking and resuming, so the deferral's own tasks are done. */
const SETTLE_MS = 100;
const TARGET = 1.2;
const OTEL_TARGET = 1.1;
const SYSTEM = "You pay out money, but only after a human approves.";
const PAYLOAD = { approved: true };

/** A timestamp (performance.now()) of one leg, per workflow id. */
interface Mark {
  workflowId: string;
  what: string;
  at: number;
}

interface Sample {
  ms: number;
  /** Leg durations in ms, keyed by leg name, in order. */
  legs: Record<string, number>;
  /** Server-side: the next model activity's scheduled → started wait, from history. */
  activityWaitMs: number;
}

export async function main(): Promise<Record<string, unknown>> {
  const marks: Mark[] = [];
  const mark = (workflowId: string, what: string): void => void marks.push({ workflowId, what, at: performance.now() });
  /** When each conversation's post-resume model request arrived at the model server. */
  const arrivals = new Map<string, number>();
  /** Tokens the SDK tool handler handed out (ctx.deferral.token), with their tool call, by run id. */
  const tokens = new Map<string, { token: string; toolCallId: string }>();

  const stack = await startBenchStack();
  try {
    const { model, namespace } = stack;
    const secret = randomBytes(32).toString("base64url");

    // Client legs: the SDK's deferral query and the update call, the bare update call.
    const clientTiming: WorkflowClientInterceptor = {
      async query(input, next) {
        mark(input.workflowExecution.workflowId, "query:start");
        try {
          return await next(input);
        } finally {
          mark(input.workflowExecution.workflowId, "query:end");
        }
      },
      async startUpdate(input, next) {
        mark(input.workflowExecution.workflowId, "update:start");
        return next(input);
      },
    };
    // Worker legs: when each (local) activity starts and ends.
    const activityTiming: ActivityInterceptorsFactory = (ctx) => ({
      inbound: {
        async execute(input, next) {
          const workflowId = ctx.info.workflowExecution?.workflowId ?? "";
          mark(workflowId, `${ctx.info.activityType}:start`);
          try {
            return await next(input);
          } finally {
            mark(workflowId, `${ctx.info.activityType}:end`);
          }
        },
      },
    });
    const client = new Client({ connection: stack.connection, namespace, interceptors: { workflow: [clientTiming] } });

    const description = "Ask a human to approve a payout";
    const askApproval = defineTool({
      name: "askApproval",
      description,
      input: z.object({ amount: z.number() }),
      handler: async (_input, ctx) => {
        tokens.set(ctx.runId, { token: ctx.deferral.token, toolCallId: ctx.toolCallId });
        return ctx.defer({ schema: z.object({ approved: z.boolean() }) });
      },
    });
    const bareTool: BareTool = {
      spec: {
        type: "function",
        function: {
          name: "askApproval",
          description,
          parameters: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"], additionalProperties: false },
        },
      },
      handler: () => "unused: the bare workflow parks instead of running the tool",
    };
    const agent = defineAgent({ id: "resume-bench", model: MODEL, system: SYSTEM, tools: [askApproval], maxTurns: 4 });
    const [{ agents }, bareQueue] = await Promise.all([
      stack.worker([agent], {
        taskQueue: `bench-resume-sdk-${randomUUID()}`,
        deferral: { secret },
        worker: { interceptors: { activity: [activityTiming] } },
        client: { client, deferral: { secret } },
      }),
      startBareWorker(stack, [bareTool], { activity: [activityTiming] }),
    ]);

    // Turn 0 asks for approval; turn 1 is the call after the resume, timestamped on arrival.
    const responder: Responder = (_request, turn) =>
      turn === 0
        ? { toolCalls: [{ name: "askApproval", arguments: { amount: 250 } }], usage: USAGE }
        : {
            text: "Approved; paid 250.",
            usage: USAGE,
            check: (request) => {
              if (!arrivals.has(request.conversation)) arrivals.set(request.conversation, performance.now());
            },
          };

    // Legs between the marks that happened: a path that skips a step (no query) has no leg for it.
    const legsOf = (workflowId: string, t0: number, t1: number, order: string[]): Record<string, number> => {
      const at = (what: string) => marks.find((m) => m.workflowId === workflowId && m.what === what && m.at >= t0)?.at;
      const inner = order.slice(1, -1).flatMap((what) => {
        const when = at(what);
        return when === undefined ? [] : [{ what, when }];
      });
      const points = [{ what: order[0]!, when: t0 }, ...inner, { what: order.at(-1)!, when: t1 }];
      return Object.fromEntries(points.slice(1).map((p, i) => [`${points[i]!.what}→${p.what}`, p.when - points[i]!.when]));
    };

    /** Parks one SDK run; resolves once `agents.run` has the deferred acknowledgment. */
    const parkSdk = async (label: string) => {
      const conversation = prompt(`resume ${label}`);
      model.respond(conversation, responder);
      const runId = `resume-${label}-${randomUUID()}`;
      const ack = await agents.run(agent, { prompt: conversation, runId });
      const handedOut = tokens.get(runId);
      if (ack.status !== "deferred" || !handedOut) throw new Error(`expected a deferral, got ${JSON.stringify(ack)}`);
      await sleep(SETTLE_MS);
      return { conversation, runId, deferralId: ack.deferralId, ...handedOut };
    };

    // A real OpenTelemetry SDK, registered only while an OTel-on sample runs (park included).
    const spans = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider();
    tracerProvider.addSpanProcessor(new BatchSpanProcessor(spans));
    const meterProvider = new MeterProvider({
      readers: [new PeriodicExportingMetricReader({ exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), exportIntervalMillis: 1000 })],
    });
    const contextManager = new AsyncLocalStorageContextManager();
    const withOtel = async <T>(work: () => Promise<T>): Promise<T> => {
      context.setGlobalContextManager(contextManager.enable());
      otelTrace.setGlobalTracerProvider(tracerProvider);
      metrics.setGlobalMeterProvider(meterProvider);
      try {
        return await work();
      } finally {
        otelTrace.disable();
        metrics.disable();
        context.disable();
      }
    };

    const sdkSample = async (otel = false): Promise<Sample> => {
      if (otel) {
        const sample = await withOtel(() => sdkSample());
        // Outside the timing: the spans really were recorded (a run the SDK did not see would cost nothing).
        await tracerProvider.forceFlush();
        const steps = spans.getFinishedSpans().filter((s) => s.name === `invoke_agent ${agent.id}`);
        spans.reset();
        if (steps.length !== 2) throw new Error(`expected the OTel-on run's two step spans, got ${steps.length}`);
        return sample;
      }
      const { conversation, runId, token } = await parkSdk("sdk");
      marks.length = 0;
      const t0 = performance.now();
      const resumed = await agents.resume({ token, payload: PAYLOAD });
      const t1 = arrivals.get(conversation);
      if (resumed.status !== "resumed" || resumed.outcome.status !== "completed" || t1 === undefined) {
        throw new Error(`resume did not complete the run: ${JSON.stringify(resumed)}`);
      }
      model.assertNoFailures();
      const legs = legsOf(runId, t0, t1, [
        "resume()",
        "query:start",
        "query:end",
        "update:start",
        "describeAgent:start",
        "describeAgent:end",
        "callAgentModel:start",
        "request",
      ]);
      await trace(client, "sdk", runId, t0, marks);
      return { ms: t1 - t0, legs, activityWaitMs: await lastModelActivityWait(client, runId) };
    };

    // Diagnostic: the resume update AgentClient sends, sent without its deferral query first.
    const updateOnlySample = async (): Promise<Sample> => {
      const { conversation, runId, deferralId, toolCallId, token } = await parkSdk("update-only");
      // What resume() sends besides the payload: the token's proof and its binding claims.
      const { binding } = verifyResumeToken([Buffer.from(secret)], token);
      const request = { deferralId, toolCallId, payload: PAYLOAD, proof: proofOf(token), ...(binding ? { binding } : {}) };
      marks.length = 0;
      const t0 = performance.now();
      const resumed = await agents.workflowHandle(runId).executeUpdate(resumeUpdate, { args: [request] });
      const t1 = arrivals.get(conversation);
      if (resumed.status !== "resumed" || resumed.outcome.status !== "completed" || t1 === undefined) {
        throw new Error(`the resume update did not complete the run: ${JSON.stringify(resumed)}`);
      }
      model.assertNoFailures();
      const legs = legsOf(runId, t0, t1, ["executeUpdate()", "update:start", "describeAgent:start", "describeAgent:end", "callAgentModel:start", "request"]);
      return { ms: t1 - t0, legs, activityWaitMs: await lastModelActivityWait(client, runId) };
    };

    const bareSample = async (): Promise<Sample> => {
      const conversation = prompt("resume bare");
      model.respond(conversation, responder);
      const workflowId = `resume-bare-${randomUUID()}`;
      const handle = await client.workflow.start<typeof bareResume>("bareResume", {
        workflowId,
        taskQueue: bareQueue,
        args: [{ system: SYSTEM, prompt: conversation }],
      });
      await handle.executeUpdate(parkedUpdate);
      await sleep(SETTLE_MS);
      marks.length = 0;
      const t0 = performance.now();
      await handle.executeUpdate(approveUpdate, { args: [JSON.stringify(PAYLOAD)] });
      await handle.result();
      const t1 = arrivals.get(conversation);
      if (t1 === undefined) throw new Error("the bare run's second model call never arrived");
      model.assertNoFailures();
      const legs = legsOf(workflowId, t0, t1, ["executeUpdate()", "update:start", "callModel:start", "request"]);
      await trace(client, "bare", workflowId, t0, marks);
      return { ms: t1 - t0, legs, activityWaitMs: await lastModelActivityWait(client, workflowId) };
    };

    // A parked bare run that only answers pings: the pure update round trip.
    const idleConversation = prompt("resume idle");
    model.respond(idleConversation, responder);
    const idle = await client.workflow.start<typeof bareResume>("bareResume", {
      workflowId: `resume-idle-${randomUUID()}`,
      taskQueue: bareQueue,
      args: [{ system: SYSTEM, prompt: idleConversation }],
    });
    await idle.executeUpdate(parkedUpdate);
    const pingSample = async (): Promise<number> => {
      const t0 = performance.now();
      await idle.executeUpdate(pingUpdate);
      return performance.now() - t0;
    };

    for (let i = 0; i < WARMUP; i++) {
      await sdkSample();
      await sdkSample(true);
      await bareSample();
      await updateOnlySample();
      await pingSample();
    }
    const sdk: Sample[] = [];
    const otel: Sample[] = [];
    const bare: Sample[] = [];
    const updateOnly: Sample[] = [];
    const pings: number[] = [];
    const paths: Array<() => Promise<void>> = [
      async () => void sdk.push(await sdkSample()),
      async () => void bare.push(await bareSample()),
      async () => void updateOnly.push(await updateOnlySample()),
      async () => void otel.push(await sdkSample(true)),
    ];
    // Alternating, and rotating which goes first, spreads drift and order effects evenly.
    for (let i = 0; i < SAMPLES; i++) {
      for (let k = 0; k < paths.length; k++) await paths[(i + k) % paths.length]!();
      await sleep(SETTLE_MS);
      pings.push(await pingSample());
      model.requests.splice(0);
      progress(
        `sample ${i + 1}/${SAMPLES}: sdk ${sdk.at(-1)!.ms.toFixed(1)}ms, bare ${bare.at(-1)!.ms.toFixed(1)}ms, ` +
          `update only ${updateOnly.at(-1)!.ms.toFixed(1)}ms, otel ${otel.at(-1)!.ms.toFixed(1)}ms, no-op update ${pings.at(-1)!.toFixed(1)}ms`,
      );
    }
    await idle.executeUpdate(approveUpdate, { args: [JSON.stringify(PAYLOAD)] });
    await idle.result();

    const sdkMedianMs = median(sdk.map((s) => s.ms));
    const bareMedianMs = median(bare.map((s) => s.ms));
    const ratio = sdkMedianMs / bareMedianMs;
    const otelMedianMs = median(otel.map((s) => s.ms));
    const otelRatio = otelMedianMs / sdkMedianMs;
    return {
      bench: "resume",
      samples: SAMPLES,
      sdkMedianMs: round(sdkMedianMs),
      sdkP90Ms: round(percentile(sdk.map((s) => s.ms), 90)),
      bareMedianMs: round(bareMedianMs),
      bareP90Ms: round(percentile(bare.map((s) => s.ms), 90)),
      ratio: round(ratio, 3),
      target: TARGET,
      pass: ratio <= TARGET && otelRatio <= OTEL_TARGET,
      // The SDK path with an OpenTelemetry SDK registered, against the plain SDK path.
      otelMedianMs: round(otelMedianMs),
      otelP90Ms: round(percentile(otel.map((s) => s.ms), 90)),
      otelRatio: round(otelRatio, 3),
      otelTarget: OTEL_TARGET,
      noopUpdateMedianMs: round(median(pings)),
      noopUpdateP90Ms: round(percentile(pings, 90)),
      // Where the time goes: the median of each leg (legs' medians need not sum to the total's).
      legsMedianMs: { sdk: legMedians(sdk), otel: legMedians(otel), bare: legMedians(bare), updateOnly: legMedians(updateOnly) },
      modelActivityWaitMedianMs: {
        sdk: round(median(sdk.map((s) => s.activityWaitMs))),
        otel: round(median(otel.map((s) => s.activityWaitMs))),
        bare: round(median(bare.map((s) => s.activityWaitMs))),
        updateOnly: round(median(updateOnly.map((s) => s.activityWaitMs))),
      },
      // Diagnostic: the SDK's resume update without the client's deferral query before it.
      updateOnlyMedianMs: round(median(updateOnly.map((s) => s.ms))),
      updateOnlyP90Ms: round(percentile(updateOnly.map((s) => s.ms), 90)),
      updateOnlyRatio: round(median(updateOnly.map((s) => s.ms)) / bareMedianMs, 3),
    };
  } finally {
    await stack.close();
  }
}

function legMedians(samples: Sample[]): Record<string, number> {
  const names = Object.keys(samples[0]?.legs ?? {});
  return Object.fromEntries(names.map((name) => [name, round(median(samples.map((s) => s.legs[name]!)))]));
}

type HistoryEvent = NonNullable<Awaited<ReturnType<ReturnType<Client["workflow"]["getHandle"]>["fetchHistory"]>>["events"]>[number];
const eventMs = (e: HistoryEvent): number => Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;

/**
 * With RESUME_TRACE=1: the run's history from t0 on, each event at its offset from t0 (server
 * clock, same machine), and the in-process marks: what the server did between the legs.
 */
async function trace(client: Client, label: string, workflowId: string, t0: number, marks: Mark[]): Promise<void> {
  if (!process.env.RESUME_TRACE) return;
  const t0Wall = performance.timeOrigin + t0;
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const lines = events
    .filter((e) => eventMs(e) >= t0Wall - 1)
    .map((e) => {
      const detail =
        e.activityTaskScheduledEventAttributes?.activityType?.name ??
        e.markerRecordedEventAttributes?.markerName ??
        e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ??
        "";
      return { at: eventMs(e) - t0Wall, text: `event ${e.eventId} ${EventType[e.eventType ?? 0]?.replace(/^EVENT_TYPE_/, "")} ${detail}` };
    });
  for (const m of marks.filter((m) => m.workflowId === workflowId && m.at >= t0)) lines.push({ at: m.at - t0, text: `mark ${m.what}` });
  lines.sort((a, b) => a.at - b.at);
  progress(`${label} trace:\n${lines.map((l) => `  +${l.at.toFixed(1).padStart(6)}ms ${l.text}`).join("\n")}`);
}

/** The run's last model activity: how long it waited in the server between scheduled and started. */
async function lastModelActivityWait(client: Client, workflowId: string): Promise<number> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const ms = eventMs;
  const scheduled = events.filter(
    (e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED && e.activityTaskScheduledEventAttributes?.activityType?.name === "callAgentModel",
  ).at(-1);
  const started = events.find(
    (e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED && Number(e.activityTaskStartedEventAttributes?.scheduledEventId) === Number(scheduled?.eventId),
  );
  return scheduled && started ? ms(started) - ms(scheduled) : NaN;
}
