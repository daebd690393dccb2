import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import OpenAI, { APIError, APIUserAbortError } from "openai";
import { type ChatMessage } from "../../src/index.js";
import { startScriptedModelServer, type Hold, type ScriptedModelServer } from "../../src/testing/index.js";

const MODEL = "gpt-test";
const WEATHER_TOOL = {
  type: "function" as const,
  function: { name: "get_weather", description: "Weather for a city", parameters: { type: "object", properties: {} } },
};

/** The error a call rejected with, so its fields can be asserted. */
async function rejection(promise: Promise<unknown>): Promise<APIError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof APIError)) throw new Error(`expected an APIError, got ${String(error)}`);
  return error;
}

const complete = (client: OpenAI, messages: ChatMessage[], options?: { signal?: AbortSignal }) =>
  client.chat.completions.create({ model: MODEL, messages, tools: [WEATHER_TOOL] }, options);

describe("scripted model server", () => {
  let server: ScriptedModelServer;
  let client: OpenAI;

  beforeAll(async () => {
    server = await startScriptedModelServer();
    client = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 });
  });
  afterAll(() => server.close());
  // Tests that fail on purpose use their own server, so this one must stay clean.
  afterEach(() => server.assertNoFailures());

  it("serves a URL ending in /v1 on 127.0.0.1", () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  });

  it("plays a multi-turn conversation, indexing turns by assistant messages", async () => {
    server.script("weather in Paris?", [
      {
        toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }],
        usage: { promptTokens: 11, completionTokens: 7 },
        check: (request) => expect(request.tools).toHaveLength(1),
      },
      { text: "Sunny in Paris.", check: (request) => expect(request.messages.at(-1)?.role).toBe("tool") },
    ]);
    const thread: ChatMessage[] = [
      { role: "system", content: "be brief" },
      { role: "user", content: "weather in Paris?" },
    ];

    const first = await complete(client, thread);
    const call = first.choices[0]?.message.tool_calls?.[0];
    expect(first.choices[0]?.finish_reason).toBe("tool_calls");
    expect(first.choices[0]?.message.content).toBeNull();
    expect(call).toEqual({ id: "call_0_0", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } });
    expect(first.usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
    expect(first.model).toBe(MODEL);

    thread.push(
      { role: "assistant", content: null, tool_calls: [{ id: "call_0_0", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
      { role: "tool", tool_call_id: "call_0_0", content: "sunny" },
    );
    const second = await complete(client, thread);
    expect(second.choices[0]?.message.content).toBe("Sunny in Paris.");
    expect(second.choices[0]?.finish_reason).toBe("stop");
    // Estimated usage: at least one token each, and consistent totals.
    const usage = second.usage!;
    expect(usage.prompt_tokens).toBeGreaterThanOrEqual(1);
    expect(usage.completion_tokens).toBe(Math.ceil("Sunny in Paris.".length / 4));
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);

    // Replaying the first request (as a durable retry would) gets the first step again.
    const replay = await complete(client, thread.slice(0, 2));
    expect(replay.choices[0]?.message.tool_calls?.[0]?.id).toBe("call_0_0");

    const recorded = server.requests.filter((r) => r.conversation === "weather in Paris?");
    expect(recorded.map((r) => [r.turn, r.attempt])).toEqual([
      [0, 0],
      [1, 0],
      [0, 1],
    ]);
    expect(recorded[1]?.messages).toHaveLength(4);
  });

  it("passes string tool arguments through unchanged and honours explicit ids", async () => {
    server.script("bad json", [{ toolCalls: [{ name: "get_weather", arguments: "{not json", id: "call_custom" }] }]);
    const reply = await complete(client, [{ role: "user", content: "bad json" }]);
    expect(reply.choices[0]?.message.tool_calls?.[0]).toMatchObject({ id: "call_custom", function: { arguments: "{not json" } });
  });

  it("generates steps with a responder", async () => {
    server.respond("count", (request, turn) => ({ text: `turn ${turn} of ${request.conversation}` }));
    const first = await complete(client, [{ role: "user", content: "count" }]);
    const second = await complete(client, [
      { role: "user", content: "count" },
      { role: "assistant", content: "turn 0 of count" },
      { role: "user", content: "again" },
    ]);
    expect(first.choices[0]?.message.content).toBe("turn 0 of count");
    expect(second.choices[0]?.message.content).toBe("turn 1 of count");
  });

  it("injects a 429 with a retry-after header, then replies", async () => {
    server.script("rate limited", [{ text: "finally", errors: [{ status: 429, retryAfterSeconds: 3 }] }]);
    const messages: ChatMessage[] = [{ role: "user", content: "rate limited" }];

    const error = await rejection(complete(client, messages));
    expect(error.status).toBe(429);
    expect(error.code).toBe("rate_limit_exceeded");
    expect(error.headers?.get("retry-after")).toBe("3");

    const reply = await complete(client, messages);
    expect(reply.choices[0]?.message.content).toBe("finally");
  });

  it("lets the client's own retries get through injected errors in order", async () => {
    server.script("flaky", [{ text: "made it", errors: [429, 503] }]);
    const retrying = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 2 });
    const reply = await complete(retrying, [{ role: "user", content: "flaky" }]);
    expect(reply.choices[0]?.message.content).toBe("made it");
    expect(server.requests.filter((r) => r.conversation === "flaky").map((r) => r.attempt)).toEqual([0, 1, 2]);
  });

  it("injects a 500", async () => {
    server.script("server error", [{ text: "ok", errors: [500] }]);
    const error = await rejection(complete(client, [{ role: "user", content: "server error" }]));
    expect(error.status).toBe(500);
    expect(error.type).toBe("server_error");
  });

  it("injects context_length_exceeded and string_above_max_length as 400s with their codes", async () => {
    server.script("too long", [{ text: "ok", errors: ["context_length_exceeded", "string_above_max_length"] }]);
    const messages: ChatMessage[] = [{ role: "user", content: "too long" }];

    const context = await rejection(complete(client, messages));
    expect(context.status).toBe(400);
    expect(context.code).toBe("context_length_exceeded");
    expect(context.param).toBe("messages");
    expect(context.message).toContain("maximum context length is 128000 tokens");

    const tooLong = await rejection(complete(client, messages));
    expect(tooLong.status).toBe(400);
    expect(tooLong.code).toBe("string_above_max_length");
  });

  it("streams text in small chunks, with usage when asked", async () => {
    const text = "The quick brown fox jumps over the lazy dog.";
    server.script("stream text", [{ text, usage: { promptTokens: 5, completionTokens: 9 } }]);
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "stream text" }],
      stream: true,
      stream_options: { include_usage: true },
    });

    const pieces: string[] = [];
    let finish: string | null | undefined;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (choice?.delta.content) pieces.push(choice.delta.content);
      if (choice?.finish_reason) finish = choice.finish_reason;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(pieces.join("")).toBe(text);
    expect(pieces).toHaveLength(Math.ceil(text.length / 8));
    expect(finish).toBe("stop");
    expect(usage).toEqual({ prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 });
    expect(server.requests.at(-1)?.stream).toBe(true);
  });

  it("streams tool-call deltas that reassemble into the scripted calls", async () => {
    const args = { city: "Paris", units: "metric", days: 3 };
    server.script("stream tools", [
      {
        text: "Checking.",
        toolCalls: [
          { name: "get_weather", arguments: args },
          { name: "get_weather", arguments: { city: "Oslo" } },
        ],
      },
    ]);
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "stream tools" }],
      tools: [WEATHER_TOOL],
      stream: true,
    });

    const calls: Array<{ id: string; name: string; arguments: string }> = [];
    let argumentDeltas = 0;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      expect(chunk.usage ?? undefined).toBeUndefined(); // not requested
      const choice = chunk.choices[0];
      for (const delta of choice?.delta.tool_calls ?? []) {
        if (delta.id) calls[delta.index] = { id: delta.id, name: delta.function?.name ?? "", arguments: "" };
        const call = calls[delta.index]!;
        if (delta.function?.arguments) {
          call.arguments += delta.function.arguments;
          argumentDeltas += 1;
        }
      }
      if (choice?.finish_reason) finish = choice.finish_reason;
    }
    expect(calls).toEqual([
      { id: "call_0_0", name: "get_weather", arguments: JSON.stringify(args) },
      { id: "call_0_1", name: "get_weather", arguments: '{"city":"Oslo"}' },
    ]);
    expect(argumentDeltas).toBeGreaterThan(2);
    expect(finish).toBe("tool_calls");

    // The client's own accumulator is strict about chunk shape; it must agree too.
    const final = await client.chat.completions
      .stream({ model: MODEL, messages: [{ role: "user", content: "stream tools" }], tools: [WEATHER_TOOL] })
      .finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe("Checking.");
    expect(final.choices[0]?.message.tool_calls?.map((c) => c.type === "function" && c.function.arguments)).toEqual([
      JSON.stringify(args),
      '{"city":"Oslo"}',
    ]);
  });

  it("records an abort during the reply latency", async () => {
    server.script("slow", [{ text: "too late", delay: "5s" }]);
    const controller = new AbortController();
    const pending = complete(client, [{ role: "user", content: "slow" }], { signal: controller.signal });
    await vi.waitFor(() => expect(server.requests.some((r) => r.conversation === "slow")).toBe(true));
    controller.abort();

    await expect(pending).rejects.toBeInstanceOf(APIUserAbortError);
    await vi.waitFor(() => expect(server.aborted).toContainEqual({ conversation: "slow", turn: 0 }));
  });

  it("lets a client abort mid-stream after seeing deltas", async () => {
    const hold = server.hold();
    server.script("slow stream", [{ text: "a".repeat(80), hold, holdAfterChars: 16 }]);
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: MODEL, messages: [{ role: "user", content: "slow stream" }], stream: true },
      { signal: controller.signal },
    );

    let seen = "";
    // The openai client ends the iteration quietly when its signal aborts, rather than throwing.
    for await (const chunk of stream) {
      seen += chunk.choices[0]?.delta.content ?? "";
      if (seen.length >= 16) controller.abort();
    }
    expect(seen).toBe("a".repeat(16));
    await vi.waitFor(() => expect(server.aborted).toContainEqual({ conversation: "slow stream", turn: 0 }));
    // Released after the client left: nothing more is written, and nothing fails.
    hold.release();
  });

  it("drops the connection part-way through a streamed answer when asked, for the attempts a responder picks", async () => {
    server.respond("dropped stream", (req) => (req.attempt === 0 ? { text: "b".repeat(80), dropAfterChars: 24 } : { text: "whole" }));
    const messages: ChatMessage[] = [{ role: "user", content: "dropped stream" }];
    const stream = await client.chat.completions.create({ model: MODEL, messages, stream: true });
    let seen = "";
    const failure = await (async () => {
      for await (const chunk of stream) seen += chunk.choices[0]?.delta.content ?? "";
    })().then(
      () => undefined,
      (err: unknown) => err,
    );
    // What was sent before the drop arrived; then the client sees a broken connection, not an end.
    expect(seen).toBe("b".repeat(24));
    expect(failure).toBeInstanceOf(Error);
    // The next attempt answers whole; the drop is neither a failure nor the client's hang-up.
    let again = "";
    for await (const chunk of await client.chat.completions.create({ model: MODEL, messages, stream: true })) again += chunk.choices[0]?.delta.content ?? "";
    expect(again).toBe("whole");
    expect(server.aborted).not.toContainEqual({ conversation: "dropped stream", turn: 0 });
    // Not streamed, the reply is dropped before anything is sent.
    server.script("dropped reply", [{ text: "never", dropAfterChars: 0 }]);
    await expect(client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "dropped reply" }] })).rejects.toThrow();
  });

  it("holds a reply until the test releases it, and says when a request waits there", async () => {
    const hold = server.hold();
    server.script("held", [{ text: "let go", hold }]);
    let answered = false;
    const pending = complete(client, [{ role: "user", content: "held" }]).then((reply) => {
      answered = true;
      return reply;
    });
    expect(await hold.reached).toMatchObject({ conversation: "held", turn: 0, attempt: 0 });
    expect(answered).toBe(false);
    hold.release();
    expect((await pending).choices[0]?.message.content).toBe("let go");
  });

  it("holds a streamed reply after the characters asked for; what comes after arrives only once released", async () => {
    const text = "The first sixteen, then the rest of the answer.";
    const hold = server.hold();
    server.script("held stream", [{ text, hold, holdAfterChars: 16 }]);
    const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "held stream" }], stream: true });
    let released = false;
    const pieces: Array<{ released: boolean; text: string }> = [];
    const reading = (async () => {
      for await (const chunk of stream) {
        const piece = chunk.choices[0]?.delta.content;
        if (piece) pieces.push({ released, text: piece });
      }
    })();
    await hold.reached;
    await vi.waitFor(() => expect(pieces.map((p) => p.text).join("")).toBe(text.slice(0, 16)));
    released = true;
    hold.release();
    await reading;
    expect(pieces.map((p) => p.text).join("")).toBe(text);
    expect(pieces.filter((p) => !p.released).map((p) => p.text)).toEqual(["The firs", "t sixtee"]);
  });

  it("lets a streamed answer out piece by piece through several holds, and holds a whole reply that is not streamed", async () => {
    const text = "One, then two, then the rest.";
    const [first, second] = [server.hold(), server.hold()];
    server.script("pieces", [{ text, holds: [{ hold: second, afterChars: 16 }, { hold: first, afterChars: 8 }] }]);
    const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "pieces" }], stream: true });
    let seen = "";
    const reading = (async () => {
      for await (const chunk of stream) seen += chunk.choices[0]?.delta.content ?? "";
    })();
    await first.reached;
    await vi.waitFor(() => expect(seen).toBe(text.slice(0, 8)));
    first.release();
    await second.reached;
    await vi.waitFor(() => expect(seen).toBe(text.slice(0, 16)));
    second.release();
    await reading;
    expect(seen).toBe(text);

    const whole = server.hold();
    server.script("whole", [{ text: "all at once", holds: [{ hold: whole, afterChars: 4 }] }]);
    const pending = complete(client, [{ role: "user", content: "whole" }]);
    await whole.reached;
    whole.release();
    expect((await pending).choices[0]?.message.content).toBe("all at once");
  });

  it("holds a streamed answer shorter than the hold point before its last chunk, tool calls counted", async () => {
    const hold = server.hold();
    server.script("short held stream", [{ toolCalls: [{ name: "get_weather", arguments: { city: "Rome" } }], hold, holdAfterChars: 1_000 }]);
    const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "short held stream" }], tools: [WEATHER_TOOL], stream: true });
    let args = "";
    let finish: string | null | undefined;
    const reading = (async () => {
      for await (const chunk of stream) {
        args += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? "";
        if (chunk.choices[0]?.finish_reason) finish = chunk.choices[0].finish_reason;
      }
    })();
    await hold.reached;
    await vi.waitFor(() => expect(args).toBe('{"city":"Rome"}'));
    expect(finish).toBeUndefined();
    hold.release();
    await reading;
    expect(finish).toBe("tool_calls");
  });

  it("records a client that hangs up while held, and one hold serves every reply that reaches it", async () => {
    const hold = server.hold();
    server.respond("held twice", () => ({ text: "both", hold }));
    const controller = new AbortController();
    const first = complete(client, [{ role: "user", content: "held twice" }], { signal: controller.signal });
    await hold.reached;
    controller.abort();
    await expect(first).rejects.toBeInstanceOf(APIUserAbortError);
    await vi.waitFor(() => expect(server.aborted).toContainEqual({ conversation: "held twice", turn: 0 }));

    const second = complete(client, [{ role: "user", content: "held twice" }]);
    await vi.waitFor(() => expect(server.requests.filter((r) => r.conversation === "held twice")).toHaveLength(2));
    hold.release();
    expect((await second).choices[0]?.message.content).toBe("both");
    // Once released, a hold lets later replies straight through.
    expect((await complete(client, [{ role: "user", content: "held twice" }])).choices[0]?.message.content).toBe("both");
  });
});

describe("scripted model server failures", () => {
  let server: ScriptedModelServer;
  let client: OpenAI;

  beforeAll(async () => {
    server = await startScriptedModelServer();
    client = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 });
  });
  afterAll(() => server.close());

  it("fails loudly when a script is exhausted", async () => {
    server.script("short", [{ text: "only one" }]);
    const error = await rejection(
      complete(client, [
        { role: "user", content: "short" },
        { role: "assistant", content: "only one" },
        { role: "user", content: "more?" },
      ]),
    );
    expect(error.status).toBe(400);
    expect(error.code).toBe("script_failure");
    expect(server.failures).toContain('the scripted model server\'s script ran out: conversation "short" asked for turn 1, and its script has 1 step(s), turns 0 to 0 (script() more steps, or respond())');
  });

  it("fails loudly for an unknown conversation", async () => {
    const error = await rejection(complete(client, [{ role: "user", content: "nobody scripted me" }]));
    expect(error.status).toBe(400);
    expect(error.message).toContain('no script for conversation "nobody scripted me"');
    expect(server.failures.at(-1)).toContain("nobody scripted me");
  });

  it("fails loudly when a check throws", async () => {
    server.script("checked", [
      {
        text: "never",
        check: () => {
          throw new Error("wrong system prompt");
        },
      },
    ]);
    const error = await rejection(complete(client, [{ role: "user", content: "checked" }]));
    expect(error.code).toBe("script_failure");
    expect(server.failures.at(-1)).toBe("check failed for conversation checked at turn 0: wrong system prompt");
  });

  it("lists every failure in assertNoFailures", () => {
    expect(() => server.assertNoFailures()).toThrow(/3 failure\(s\)[\s\S]*script ran out[\s\S]*no script[\s\S]*check failed/);
  });

  it("starts a redefined script over, injected errors included", async () => {
    server.script("redo", [{ text: "v1", errors: [500] }]);
    const messages: ChatMessage[] = [{ role: "user", content: "redo" }];
    expect((await rejection(complete(client, messages))).status).toBe(500);
    expect((await complete(client, messages)).choices[0]?.message.content).toBe("v1");

    server.script("redo", [{ text: "v2", errors: [500] }]);
    expect((await rejection(complete(client, messages))).status).toBe(500);
    expect((await complete(client, messages)).choices[0]?.message.content).toBe("v2");
  });

  it("fails loudly for a hold that no server made", async () => {
    const foreign = { reached: new Promise(() => undefined), release: () => undefined } as unknown as Hold;
    server.script("forged hold", [{ text: "never", hold: foreign }]);
    const error = await rejection(complete(client, [{ role: "user", content: "forged hold" }]));
    expect(error.code).toBe("script_failure");
    expect(server.failures.at(-1)).toBe("a hold of conversation forged hold at turn 0 is not from a scripted model server's hold()");
  });
});
