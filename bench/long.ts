/**
 * "A 5,000-turn run completes": one agent run of `LONG_TURNS` tool-using turns (12 history
 * events each, so about 60,000 in all, past Temporal's 51,200-event limit for one
 * execution). It continues as new when Temporal suggests it; the result says how many
 * executions it took and the longest history among them.
 */
import { randomUUID } from "node:crypto";
import { AgentClient } from "../src/index.js";
import { envInt, progress, prompt, startBench } from "./lib.js";

const TURNS = envInt("LONG_TURNS", 5_000);

export async function main(): Promise<Record<string, unknown>> {
  const bench = await startBench({ maxTurns: TURNS + 1, toolResultBytes: 16 });
  try {
    const { model, client, agent, sdkQueue: taskQueue } = bench;
    const agents = new AgentClient({ client, taskQueue });
    const conversation = prompt("long run");
    model.respond(conversation, (_req, turn) => {
      // The requests carry the transcript: keep none of them.
      model.requests.splice(0);
      if (turn % 500 === 0) progress(`turn ${turn}/${TURNS}`);
      return turn < TURNS
        ? { toolCalls: [{ name: "search", arguments: { query: `q${turn}` } }], usage: { promptTokens: 1, completionTokens: 1 } }
        : { text: `done after ${TURNS} turns`, usage: { promptTokens: 1, completionTokens: 1 } };
    });
    const runId = `bench-long-${randomUUID()}`;
    const t0 = performance.now();
    const result = await agents.run(agent, { prompt: conversation, runId });
    const ms = performance.now() - t0;
    if (result.status !== "completed") throw new Error(`the run settled as ${result.status}`);
    const executions: number[] = [];
    for await (const execution of client.workflow.list({ query: `WorkflowId = "${runId}"` })) executions.push(execution.historyLength ?? 0);
    model.assertNoFailures();
    return {
      bench: "long",
      turns: TURNS,
      completed: result.turnsUsed === TURNS + 1 && result.messageCount === 2 * TURNS + 2,
      turnsUsed: result.turnsUsed,
      messageCount: result.messageCount,
      seconds: Math.round(ms / 100) / 10,
      executions: executions.length,
      longestHistoryEvents: Math.max(...executions),
      target: "completes (one execution may hold at most 51,200 events)",
      pass: result.turnsUsed === TURNS + 1 && Math.max(...executions) < 51_200,
    };
  } finally {
    await bench.close();
  }
}
