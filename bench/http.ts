/**
 * The HTTP front door's costs, measured in one run against the client library:
 *
 * - resume: from sending a resume to the run's next model call, `POST /resume` through
 *   the handler on a real Node HTTP server against `agents.resume()` in the same process,
 *   samples interleaved. Target: HTTP ≤ 1.15× the library (median).
 * - SSE fan-out: 1, 10 and 100 readers of one thread's `/events`: stream queries per poll
 *   interval while an answer streams (one poller per thread per process: ≈ 1 whatever the
 *   readers), and time to first byte of each reader's response.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { serve } from "@hono/node-server";
import { Client, type WorkflowClientInterceptor } from "@temporalio/client";
import { z } from "zod";
import { defineAgent, defineTool, ThreadsClient } from "../src/index.js";
import { createAgentHttpHandler } from "../src/http.js";
import type { Responder } from "../src/testing/index.js";
import { envInt, median, MODEL, percentile, progress, prompt, round, startBenchStack, USAGE } from "./lib.js";

const SAMPLES = envInt("HTTP_SAMPLES", 40);
const WARMUP = 3;
const TARGET = 1.15;
const POLL_MS = 100;
const READERS = [1, 10, 100];

export async function main(): Promise<Record<string, unknown>> {
  const stack = await startBenchStack();
  const closers: Array<() => Promise<unknown>> = [];
  try {
    const { model, namespace } = stack;
    const secret = randomBytes(32).toString("base64url");
    const tokens = new Map<string, string>();
    const arrivals = new Map<string, number>();
    let streamQueries = 0;
    const counting: WorkflowClientInterceptor = {
      query(input, next) {
        if (input.queryType === "durable-agents.thread.stream") streamQueries++;
        return next(input);
      },
    };
    const client = new Client({ connection: stack.connection, namespace, interceptors: { workflow: [counting] } });

    const askApproval = defineTool({
      name: "askApproval",
      description: "Ask a human to approve a payout",
      input: z.object({ amount: z.number() }),
      handler: (_input, ctx) => {
        tokens.set(ctx.runId, ctx.deferral.token);
        return ctx.defer({ schema: z.object({ approved: z.boolean() }) });
      },
    });
    const agent = defineAgent({ id: "http-bench", model: MODEL, system: "You pay after approval.", tools: [askApproval], maxTurns: 4 });
    const { agents, taskQueue } = await stack.worker([agent], {
      taskQueue: `bench-http-${randomUUID()}`,
      deferral: { secret },
      client: { client, deferral: { secret } },
    });
    const threads = new ThreadsClient({ client, taskQueue, agent });
    const handler = createAgentHttpHandler({ agents, threads, authenticate: () => undefined, events: { pollInterval: POLL_MS } });
    const server = await new Promise<Server>((resolve) => {
      const s = serve({ fetch: handler, port: 0, hostname: "127.0.0.1" }, () => resolve(s as Server));
    });
    closers.push(() => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const responder: Responder = (_request, turn) =>
      turn === 0
        ? { toolCalls: [{ name: "askApproval", arguments: { amount: 250 } }], usage: USAGE }
        : { text: "Approved; paid 250.", usage: USAGE, check: (r) => void (arrivals.has(r.conversation) || arrivals.set(r.conversation, performance.now())) };

    const park = async () => {
      const conversation = prompt("http resume");
      model.respond(conversation, responder);
      const runId = `http-resume-${randomUUID()}`;
      const ack = await agents.run(agent, { prompt: conversation, runId });
      if (ack.status !== "deferred") throw new Error(`expected a deferral, got ${JSON.stringify(ack)}`);
      await sleep(100);
      return { conversation, token: tokens.get(runId)! };
    };
    const viaLibrary = async () => {
      const { conversation, token } = await park();
      const t0 = performance.now();
      const resumed = await agents.resume({ token, payload: { approved: true } });
      if (resumed.status !== "resumed") throw new Error(JSON.stringify(resumed));
      return arrivals.get(conversation)! - t0;
    };
    const viaHttp = async () => {
      const { conversation, token } = await park();
      const t0 = performance.now();
      const response = await fetch(`${base}/resume`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token, payload: { approved: true } }) });
      const body = (await response.json()) as { status?: string };
      if (body.status !== "resumed") throw new Error(JSON.stringify(body));
      return arrivals.get(conversation)! - t0;
    };

    progress(`resume: ${WARMUP} warm-up pairs, then ${SAMPLES} interleaved pairs`);
    for (let i = 0; i < WARMUP; i++) {
      await viaLibrary();
      await viaHttp();
    }
    const library: number[] = [];
    const http: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      // Alternate which goes first, so neither always meets a warmer server.
      if (i % 2 === 0) {
        library.push(await viaLibrary());
        http.push(await viaHttp());
      } else {
        http.push(await viaHttp());
        library.push(await viaLibrary());
      }
    }
    const ratio = median(http) / median(library);
    progress(`resume: library median ${round(median(library))} ms, HTTP ${round(median(http))} ms, ratio ${round(ratio, 3)}`);

    const STORY = "The answer streamed to every reader through one poller per thread. ".repeat(6);
    const fanOut: Array<Record<string, number>> = [];
    for (const readers of READERS) {
      const conversation = prompt("fan-out");
      model.script(conversation, [{ text: STORY, chunkDelay: 25, usage: USAGE }]);
      const { threadId } = await threads.createThread({ prompt: conversation, autoStart: false });
      const ttfb: number[] = [];
      const controllers: AbortController[] = [];
      const done: Array<Promise<void>> = [];
      await Promise.all(
        Array.from({ length: readers }, async () => {
          const ac = new AbortController();
          controllers.push(ac);
          const t0 = performance.now();
          const response = await fetch(`${base}/threads/${threadId}/events`, { signal: ac.signal });
          ttfb.push(performance.now() - t0);
          done.push(
            (async () => {
              const decoder = new TextDecoder();
              let text = "";
              try {
                for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
                  text += decoder.decode(chunk, { stream: true });
                  if (text.includes('"status":"completed"')) return;
                }
              } catch {
                // aborted
              }
            })(),
          );
        }),
      );
      const before = streamQueries;
      const t0 = performance.now();
      await threads.resumeThread({ threadId });
      await Promise.all(done);
      const elapsed = performance.now() - t0;
      const polls = streamQueries - before;
      for (const ac of controllers) ac.abort();
      fanOut.push({
        readers,
        polls,
        intervals: round(elapsed / POLL_MS, 1),
        pollsPerInterval: round(polls / (elapsed / POLL_MS), 2),
        ttfbMedianMs: round(median(ttfb)),
        ttfbP95Ms: round(percentile(ttfb, 95)),
      });
      progress(`fan-out ${readers}: ${polls} stream queries over ${round(elapsed)} ms (${round(polls / (elapsed / POLL_MS), 2)} per ${POLL_MS} ms), TTFB median ${round(median(ttfb))} ms`);
      await sleep(POLL_MS * 3);
    }
    model.assertNoFailures();
    return {
      bench: "http",
      resume: { samples: SAMPLES, libraryMedianMs: round(median(library)), httpMedianMs: round(median(http)), libraryP95Ms: round(percentile(library, 95)), httpP95Ms: round(percentile(http, 95)), ratio: round(ratio, 3), target: TARGET, met: ratio <= TARGET },
      fanOut: { pollInterval: POLL_MS, runs: fanOut },
    };
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await stack.close();
  }
}
