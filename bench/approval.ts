/**
 * "Approvals the runtime enforces" (issue 24): a payout approved two ways in one run,
 * against one scripted model server and one dev server.
 *
 * - gate: the payout tool declares `needsApproval`. lookup → the model calls `pay` → the run
 *   parks before `pay` runs (no activity between the answer and the park) → a decision →
 *   `pay` runs → the answer. Three model calls.
 * - defer: today's pattern, an approval tool whose handler calls `ctx.defer()`. lookup →
 *   `askApproval` (an activity, then the park) → a resume → the model calls `pay` → `pay`
 *   runs → the answer. Four model calls.
 *
 * Per sample, alternating which goes first: start → parked (the caller holds the
 * acknowledgment), resume → next model request (when the model server receives it; the
 * gate runs the approved payout first, the deferral's model has yet to ask for it), resume →
 * the model request that reads the payout's result (the same point of both flows), resume →
 * final answer. And the history bytes of
 * each completed run. Ratios are gate ÷ defer (target ≤ 1.0 for start → parked and resume →
 * answer). APPROVAL_SAMPLES (default 20).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { defineAgent, defineTool } from "../src/index.js";
import type { Responder } from "../src/testing/index.js";
import { approvalTool, envInt, historyStats, median, MODEL, progress, prompt, round, startBenchStack, USAGE } from "./lib.js";

const SAMPLES = envInt("APPROVAL_SAMPLES", 20);
const WARMUP = 2;
const SYSTEM = "You look the account up and pay it once approved.";

interface Sample {
  startToParkedMs: number;
  resumeToModelMs: number;
  /** Resume → the model request that reads the payout's result: the same point of both flows. */
  resumeToPaidModelMs: number;
  resumeToAnswerMs: number;
}

export async function main(): Promise<Record<string, unknown>> {
  const stack = await startBenchStack();
  try {
    const tokens = new Map<string, string>();
    const arrivals = new Map<string, number>();
    const lookup = defineTool({ name: "lookup", description: "Looks an account up", input: z.object({ account: z.string() }), handler: () => "acme: 250 due" });
    const pay = defineTool({ name: "pay", description: "Pays", input: z.object({ amount: z.number() }), handler: ({ amount }) => `paid ${amount}` });
    const gatedPay = defineTool({
      name: "pay",
      description: "Pays",
      input: z.object({ amount: z.number() }),
      needsApproval: true,
      approval: { notify: (request) => void tokens.set(request.runId, request.token) },
      handler: ({ amount }) => `paid ${amount}`,
    });
    const deferAgent = defineAgent({ id: "bench-defer", model: MODEL, system: SYSTEM, tools: [lookup, approvalTool(tokens), pay], maxTurns: 6 });
    const gateAgent = defineAgent({ id: "bench-gate", model: MODEL, system: SYSTEM, tools: [lookup, gatedPay], maxTurns: 6 });
    const { agents } = await stack.worker([deferAgent, gateAgent], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } });

    const responder =
      (conversation: string, kind: "gate" | "defer"): Responder =>
      (_request, turn) => {
        const key = `${conversation}#${turn}`;
        if (!arrivals.has(key)) arrivals.set(key, performance.now());
        if (turn === 0) return { toolCalls: [{ name: "lookup", arguments: { account: "acme" } }], usage: USAGE };
        if (kind === "gate" && turn === 1) return { toolCalls: [{ name: "pay", id: "pay_1", arguments: { amount: 250 } }], usage: USAGE };
        if (kind === "defer" && turn === 1) return { toolCalls: [{ name: "askApproval", arguments: { amount: 250 } }], usage: USAGE };
        if (kind === "defer" && turn === 2) return { toolCalls: [{ name: "pay", arguments: { amount: 250 } }], usage: USAGE };
        return { text: "Paid 250.", usage: USAGE };
      };

    const once = async (kind: "gate" | "defer"): Promise<Sample & { runId: string }> => {
      const runId = prompt(`approval-${kind}`).replace(/\s/g, "-");
      stack.model.respond(runId, responder(runId, kind));
      const startedAt = performance.now();
      const ack = await agents.run(kind === "gate" ? gateAgent : deferAgent, { prompt: runId, runId });
      const parkedAt = performance.now();
      if (ack.status !== "deferred") throw new Error(`${kind}: expected the run to park, it settled as ${ack.status}`);
      // The link's token: handed out by the deferring handler, or by the gate's notify once parked (not on the measured path).
      for (let i = 0; !tokens.has(runId); i++) {
        if (i > 400) throw new Error(`${kind}: no token was handed out`);
        await sleep(5);
      }
      await sleep(100);
      const payload = kind === "gate" ? { decisions: [{ toolCallId: "pay_1", approved: true }] } : { approved: true };
      const resumedAt = performance.now();
      const resumed = await agents.resume({ token: tokens.get(runId)!, payload: payload as never });
      const answeredAt = performance.now();
      if (resumed.outcome.status !== "completed") throw new Error(`${kind}: expected the run to complete, it settled as ${resumed.outcome.status}`);
      // Either way the model's third request is the first after the decision; the gate's reads the payout's result too.
      return {
        runId,
        startToParkedMs: parkedAt - startedAt,
        resumeToModelMs: arrivals.get(`${runId}#2`)! - resumedAt,
        resumeToPaidModelMs: arrivals.get(`${runId}#${kind === "gate" ? 2 : 3}`)! - resumedAt,
        resumeToAnswerMs: answeredAt - resumedAt,
      };
    };

    const samples = { gate: [] as Sample[], defer: [] as Sample[] };
    let last: Record<"gate" | "defer", string> = { gate: "", defer: "" };
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      const order: Array<"gate" | "defer"> = i % 2 === 0 ? ["gate", "defer"] : ["defer", "gate"];
      for (const kind of order) {
        const sample = await once(kind);
        last = { ...last, [kind]: sample.runId };
        if (i >= WARMUP) samples[kind].push(sample);
      }
      stack.model.requests.splice(0);
      if (i % 5 === 4) progress(`${i + 1 - WARMUP}/${SAMPLES} samples`);
    }
    const medians = (list: Sample[]) => ({
      startToParkedMs: round(median(list.map((s) => s.startToParkedMs))),
      resumeToModelMs: round(median(list.map((s) => s.resumeToModelMs))),
      resumeToPaidModelMs: round(median(list.map((s) => s.resumeToPaidModelMs))),
      resumeToAnswerMs: round(median(list.map((s) => s.resumeToAnswerMs))),
    });
    const gate = medians(samples.gate);
    const defer = medians(samples.defer);
    const [gateHistory, deferHistory] = await Promise.all([historyStats(agents.client, last.gate), historyStats(agents.client, last.defer)]);
    return {
      bench: "approval",
      samples: SAMPLES,
      gate: { ...gate, historyBytes: gateHistory.historyBytes, events: gateHistory.events, modelCalls: 3 },
      defer: { ...defer, historyBytes: deferHistory.historyBytes, events: deferHistory.events, modelCalls: 4 },
      ratio: {
        startToParked: round(gate.startToParkedMs / defer.startToParkedMs, 3),
        resumeToModel: round(gate.resumeToModelMs / defer.resumeToModelMs, 3),
        resumeToPaidModel: round(gate.resumeToPaidModelMs / defer.resumeToPaidModelMs, 3),
        resumeToAnswer: round(gate.resumeToAnswerMs / defer.resumeToAnswerMs, 3),
        historyBytes: round(gateHistory.historyBytes / deferHistory.historyBytes, 3),
      },
    };
  } finally {
    await stack.close();
  }
}

const SECRET = "bench-secret-0123456789-abcdefghijklmnop";
