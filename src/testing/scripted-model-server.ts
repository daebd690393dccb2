/**
 * A scripted stand-in for the OpenAI chat-completions API, served over real HTTP so tests,
 * benchmarks and the demo exercise the real `openai` client (retries, streaming, aborts)
 * rather than a mocked function.
 *
 * A conversation is keyed by its first user message. The turn is the number of assistant
 * messages already in the request, so a retried or replayed request gets the same step:
 * that is what makes the server safe to use under durable execution, which re-sends calls.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ChatMessage, ToolCall } from "../core/messages.js";
import type { Duration } from "@temporalio/common";
import { delayMs } from "../core/duration.js";

export interface ScriptedToolCall {
  name: string;
  /** An object is JSON-encoded; a string is sent as-is (so tests can send invalid JSON). */
  arguments: unknown;
  /** Defaults to `call_<turn>_<index>`, deterministic across replays. */
  id?: string;
}

export type InjectedError =
  | 429
  | 500
  | 503
  | 401
  | 400
  | "context_length_exceeded"
  | "string_above_max_length";

export interface ScriptStep {
  /** Assistant content. */
  text?: string;
  /** Assistant tool calls. */
  toolCalls?: ScriptedToolCall[];
  /** Defaults to an estimate of chars/4 of the request messages and of the reply (min 1 each). */
  usage?: { promptTokens: number; completionTokens: number };
  /**
   * Keeps the reply waiting until the test releases the hold (`server.hold()`): before anything
   * is sent, or, on a streamed reply with `holdAfterChars`, part-way through (`holds` for
   * several points). A test that
   * waits on `hold.reached` knows the model was called (and, streaming, what was sent), and
   * decides when the answer goes on: it synchronises on the model instead of on its pace.
   * Not applied to injected errors.
   */
  hold?: Hold;
  /**
   * With `hold`, on a streamed reply: the hold falls once at least this many characters of the
   * answer (its text, then its tool calls' arguments) are sent, or before the last chunk of a
   * shorter answer. A non-streamed reply is held before it is sent.
   */
  holdAfterChars?: number;
  /**
   * Further holds along a streamed answer, each falling after its count of characters as
   * `holdAfterChars` does, so a test can let an answer out piece by piece. A non-streamed
   * reply waits for all of them, in order, before it is sent.
   */
  holds?: Array<{ hold: Hold; afterChars: number }>;
  /**
   * The server drops the connection once this many characters of a streamed answer are sent
   * (after the holds up to that point), with no finish chunk and no `[DONE]`: a provider or
   * proxy failing mid-answer, which the client sees as a network error and a durable caller
   * retries. A non-streamed reply is dropped before anything is sent. Give it from a
   * responder (`request.attempt`) to fail only some attempts. Not counted in `aborted`.
   */
  dropAfterChars?: number;
  /** Latency before the reply (and before the first chunk when streaming), e.g. `"200ms"`. Not applied to injected errors. */
  delay?: Duration;
  /** Pause between streamed chunks, e.g. `"5ms"`, so tests can observe deltas and abort mid-stream. */
  chunkDelay?: Duration;
  /** Served one per attempt, in order, before the reply. */
  errors?: Array<InjectedError | { status: InjectedError; retryAfterSeconds?: number; message?: string }>;
  /** Throw to fail loudly, e.g. to assert what the model was sent. Runs on every attempt. */
  check?: (request: ChatRequest) => void;
}

/**
 * A point where a scripted reply waits until the test lets it go on, from `server.hold()`.
 * One hold can sit in several steps: each reply that reaches it waits for the same release.
 */
export interface Hold {
  /** Resolves with the request once a reply waits at this hold (if streamed, after what it sent so far). */
  readonly reached: Promise<ChatRequest>;
  /** Lets every reply waiting here go on; later ones pass straight through. Idempotent. */
  release(): void;
}

/** Generates steps on the fly, for long or synthetic conversations (benchmarks). */
export type Responder = (request: ChatRequest, turn: number) => ScriptStep;

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: unknown[];
  stream?: boolean;
  /** The first user message: the key the script is looked up by. */
  conversation: string;
  /** Number of assistant messages in the request. */
  turn: number;
  /** 0 for the first request at this (conversation, turn), then 1, 2, ... */
  attempt: number;
  /** Every other field the client sent (`temperature`, `max_tokens`, `stop`, provider options), for checks. */
  params: Record<string, unknown>;
}

export interface ScriptedModelServer {
  /** Base URL for the `openai` client, ending in `/v1`. */
  url: string;
  /** (Re)define a conversation's script; also resets its attempt counters. */
  script(conversation: string, steps: ScriptStep[]): void;
  /** Generated conversation; also resets its attempt counters. */
  respond(conversation: string, responder: Responder): void;
  /**
   * Answers every conversation that has no script of its own (an app where people type
   * anything, like the chat example). Without it such a request fails loudly.
   */
  respondToAny(responder: Responder): void;
  /** A new hold for a step's `hold`: the replies that reach it wait until its `release()`. */
  hold(): Hold;
  /** Every well-formed request received, in order, recorded before it is answered. */
  requests: ChatRequest[];
  /** Requests whose client hung up before the reply was complete. */
  aborted: Array<{ conversation: string; turn: number }>;
  /** Every loud failure (no script, script exhausted, check threw, malformed request). */
  failures: string[];
  assertNoFailures(): void;
  close(): Promise<void>;
}

export interface ScriptedModelServerOptions {
  /** Defaults to 0 (any free port). */
  port?: number;
  /** Defaults to 127.0.0.1. */
  host?: string;
  /** Characters per streamed content or arguments chunk. Defaults to 8. */
  streamChunkChars?: number;
}

type Script = { kind: "steps"; steps: ScriptStep[] } | { kind: "responder"; responder: Responder };

/** A step resolution that went wrong; answered as a 400 so the client does not retry it. */
class ScriptFailure extends Error {}

/** Per-request facts needed while answering. */
interface Exchange {
  request: ChatRequest;
  res: ServerResponse;
  includeUsage: boolean;
  /** True once the client closed the connection before the response finished. */
  hungUp: boolean;
  /** True when the script dropped the connection itself (`dropAfterChars`): not the client's doing. */
  dropped?: boolean;
}

const CHAT_PATHS = new Set(["/v1/chat/completions", "/chat/completions"]);
const LOG_PREFIX = "[scripted-model-server]";

export async function startScriptedModelServer(
  options: ScriptedModelServerOptions = {},
): Promise<ScriptedModelServer> {
  const host = options.host ?? "127.0.0.1";
  const chunkChars = Math.max(1, options.streamChunkChars ?? 8);
  const scripts = new Map<string, Script>();
  const attempts = new Map<string, number>();
  const requests: ChatRequest[] = [];
  const aborted: Array<{ conversation: string; turn: number }> = [];
  const failures: string[] = [];
  let responseCounter = 0;
  let fallback: Responder | undefined;

  const fail = (res: ServerResponse, message: string): void => {
    failures.push(message);
    process.stderr.write(`${LOG_PREFIX} ${message}\n`);
    sendJson(res, 400, errorBody(message, "invalid_request_error", "script_failure"));
  };

  const define = (conversation: string, script: Script): void => {
    scripts.set(conversation, script);
    // A redefined conversation starts over, including its injected errors.
    for (const key of attempts.keys()) {
      if (attemptConversation(key) === conversation) attempts.delete(key);
    }
  };

  const nextAttempt = (conversation: string, turn: number): number => {
    const key = attemptKey(conversation, turn);
    const attempt = attempts.get(key) ?? 0;
    attempts.set(key, attempt + 1);
    return attempt;
  };

  const resolveStep = (request: ChatRequest): ScriptStep & { delayMs: number; chunkDelayMs: number } => {
    const { conversation, turn } = request;
    const script = scripts.get(conversation) ?? (fallback ? { kind: "responder" as const, responder: fallback } : undefined);
    if (!script) {
      throw new ScriptFailure(`the scripted model server has no script for conversation ${JSON.stringify(conversation)} (turn ${turn}): script() it, respond() to it, or respondToAny()`);
    }
    let step: ScriptStep | undefined;
    if (script.kind === "steps") {
      step = script.steps[turn];
      if (!step) {
        throw new ScriptFailure(
          `the scripted model server's script ran out: conversation ${JSON.stringify(conversation)} asked for turn ${turn}, and its script has ${script.steps.length === 0 ? "no steps" : `${script.steps.length} step(s), turns 0 to ${script.steps.length - 1}`} (script() more steps, or respond())`,
        );
      }
    } else {
      step = callScriptCode(() => script.responder(request, turn), `responder threw for conversation ${conversation} at turn ${turn}`);
    }
    const check = step.check;
    if (check) callScriptCode(() => check(request), `check failed for conversation ${conversation} at turn ${turn}`);
    if (holdPoints(step).some(({ hold }) => !gates.has(hold))) {
      throw new ScriptFailure(`a hold of conversation ${conversation} at turn ${turn} is not from a scripted model server's hold()`);
    }
    const wait = (value: Duration | undefined, name: string) =>
      callScriptCode(() => delayMs(value ?? 0, `${name} of conversation ${conversation} at turn ${turn}`, "5ms"), `bad ${name} for conversation ${conversation} at turn ${turn}`);
    return { ...step, delayMs: wait(step.delay, "delay"), chunkDelayMs: wait(step.chunkDelay, "chunkDelay") };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? "").split("?")[0] ?? "";
    const body = await readBody(req);
    if (req.method !== "POST" || !CHAT_PATHS.has(path)) {
      return fail(res, `unexpected request ${req.method} ${req.url}`);
    }
    let parsed: ParsedBody;
    try {
      parsed = parseBody(body);
    } catch (error) {
      return fail(res, `malformed request body: ${errorMessage(error)}`);
    }
    const conversation = parsed.messages.find((m) => m.role === "user")?.content;
    if (conversation === undefined) return fail(res, "request has no user message to key the conversation by");

    const turn = parsed.messages.filter((m) => m.role === "assistant").length;
    const request: ChatRequest = {
      model: parsed.model,
      messages: parsed.messages,
      ...(parsed.tools ? { tools: parsed.tools } : {}),
      ...(parsed.stream !== undefined ? { stream: parsed.stream } : {}),
      conversation,
      turn,
      attempt: nextAttempt(conversation, turn),
      params: parsed.params,
    };
    requests.push(request);

    const exchange: Exchange = { request, res, includeUsage: parsed.includeUsage, hungUp: false };
    res.on("close", () => {
      if (res.writableFinished) return;
      exchange.hungUp = true;
      if (!exchange.dropped) aborted.push({ conversation, turn });
    });

    let step: ScriptStep & { delayMs: number; chunkDelayMs: number };
    try {
      step = resolveStep(request);
    } catch (error) {
      if (error instanceof ScriptFailure) return fail(res, error.message);
      throw error;
    }

    const injected = step.errors?.[request.attempt];
    if (injected !== undefined) return sendInjectedError(res, injected);

    // A streamed reply holds part-way where it was asked to; anything else before it starts.
    const points = holdPoints(step);
    const midStream = request.stream ? points.filter((p) => p.afterChars > 0) : [];
    for (const { hold } of points) if (!midStream.some((p) => p.hold === hold)) await waitAt(hold, exchange);
    if (exchange.hungUp) return;
    await pause(step.delayMs, exchange);
    if (exchange.hungUp) return;

    responseCounter += 1;
    const reply = buildReply(step, request, `chatcmpl-scripted-${responseCounter}`);
    if (request.stream) await streamReply(exchange, reply, step.chunkDelayMs, chunkChars, midStream, step.dropAfterChars);
    else if (step.dropAfterChars !== undefined) await drop(exchange);
    else sendJson(res, 200, completionBody(reply));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A bug in the server itself: still loud, but as a 500 since it is not the script's fault.
      const message = `internal error: ${errorMessage(error)}`;
      failures.push(message);
      process.stderr.write(`${LOG_PREFIX} ${message}\n`);
      if (!res.headersSent) sendJson(res, 500, errorBody(message, "server_error", null));
      else res.destroy();
    });
  });

  const port = await listen(server, options.port ?? 0, host);

  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}/v1`,
    script: (conversation, steps) => define(conversation, { kind: "steps", steps }),
    respond: (conversation, responder) => define(conversation, { kind: "responder", responder }),
    respondToAny: (responder) => void (fallback = responder),
    hold: createHold,
    requests,
    aborted,
    failures,
    assertNoFailures() {
      if (failures.length === 0) return;
      throw new Error(
        `scripted model server recorded ${failures.length} failure(s):\n${failures.map((f) => `- ${f}`).join("\n")}`,
      );
    },
    close: () => closeServer(server),
  };
}

// ---------------------------------------------------------------------------------------
// Request parsing

interface ParsedBody {
  model: string;
  messages: ChatMessage[];
  tools?: unknown[];
  stream?: boolean;
  includeUsage: boolean;
  params: Record<string, unknown>;
}

function parseBody(text: string): ParsedBody {
  const json: unknown = JSON.parse(text);
  if (!isRecord(json)) throw new Error("expected a JSON object");
  if (!Array.isArray(json.messages)) throw new Error("`messages` must be an array");
  const streamOptions = isRecord(json.stream_options) ? json.stream_options : {};
  const { model: _model, messages: _messages, tools: _tools, stream: _stream, stream_options: _options, ...params } = json;
  return {
    params,
    model: typeof json.model === "string" ? json.model : "",
    // Trusted as-is: the client under test is the thing that builds these.
    messages: json.messages as ChatMessage[],
    ...(Array.isArray(json.tools) ? { tools: json.tools as unknown[] } : {}),
    ...(typeof json.stream === "boolean" ? { stream: json.stream } : {}),
    includeUsage: streamOptions.include_usage === true,
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

// ---------------------------------------------------------------------------------------
// Replies

interface Reply {
  id: string;
  created: number;
  model: string;
  content: string | null;
  toolCalls: ToolCall[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

function buildReply(step: ScriptStep, request: ChatRequest, id: string): Reply {
  const toolCalls: ToolCall[] = (step.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? `call_${request.turn}_${index}`,
    type: "function",
    function: {
      name: call.name,
      arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}),
    },
  }));
  // A tool-call-only reply has null content, as real models send.
  const content = step.text ?? (toolCalls.length > 0 ? null : "");
  const promptTokens = step.usage?.promptTokens ?? estimateTokens(charsOfMessages(request.messages));
  const completionTokens =
    step.usage?.completionTokens ?? estimateTokens((content ?? "").length + charsOfToolCalls(toolCalls));
  return {
    id,
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    content,
    toolCalls,
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}

const finishReason = (reply: Reply): "tool_calls" | "stop" => (reply.toolCalls.length > 0 ? "tool_calls" : "stop");

function completionBody(reply: Reply): unknown {
  return {
    id: reply.id,
    object: "chat.completion",
    created: reply.created,
    model: reply.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: reply.content,
          refusal: null,
          ...(reply.toolCalls.length > 0 ? { tool_calls: reply.toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: finishReason(reply),
      },
    ],
    usage: reply.usage,
  };
}

/**
 * The chunk sequence of a streamed reply, in the order the real API sends them, each with
 * the characters of the answer it carries (what `holdAfterChars` counts).
 */
function replyChunks(reply: Reply, includeUsage: boolean, chunkChars: number): Array<{ chunk: unknown; chars: number; finish?: true }> {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): unknown => ({
    id: reply.id,
    object: "chat.completion.chunk",
    created: reply.created,
    model: reply.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    // With include_usage the real API sends `usage: null` on every chunk but the last.
    ...(includeUsage ? { usage: null } : {}),
  });

  const chunks: Array<{ chunk: unknown; chars: number; finish?: true }> = [{ chunk: chunk({ role: "assistant", content: "", refusal: null }), chars: 0 }];
  for (const piece of split(reply.content ?? "", chunkChars)) chunks.push({ chunk: chunk({ content: piece }), chars: piece.length });
  reply.toolCalls.forEach((call, index) => {
    chunks.push({
      chunk: chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] }),
      chars: 0,
    });
    for (const piece of split(call.function.arguments, chunkChars)) {
      chunks.push({ chunk: chunk({ tool_calls: [{ index, function: { arguments: piece } }] }), chars: piece.length });
    }
  });
  chunks.push({ chunk: chunk({}, finishReason(reply)), chars: 0, finish: true });
  if (includeUsage) {
    const usage = { id: reply.id, object: "chat.completion.chunk", created: reply.created, model: reply.model, choices: [], usage: reply.usage };
    chunks.push({ chunk: usage, chars: 0 });
  }
  return chunks;
}

async function streamReply(
  exchange: Exchange,
  reply: Reply,
  chunkDelayMs: number,
  chunkChars: number,
  holds: HoldPoint[],
  dropAfterChars: number | undefined,
): Promise<void> {
  const { res } = exchange;
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "x-request-id": `req_${reply.id}` });
  const chunks = replyChunks(reply, exchange.includeUsage, chunkChars);
  let sent = 0;
  let next = 0;
  for (const [index, { chunk, chars, finish }] of chunks.entries()) {
    // Holds past the end of a shorter answer fall before its last chunk.
    for (; finish && next < holds.length; next++) await waitAt(holds[next]!.hold, exchange);
    if (index > 0) await pause(chunkDelayMs, exchange);
    if (exchange.hungUp) return;
    res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    sent += chars;
    for (; next < holds.length && sent >= holds[next]!.afterChars; next++) await waitAt(holds[next]!.hold, exchange);
    if (exchange.hungUp) return;
    if (dropAfterChars !== undefined && sent >= dropAfterChars) return drop(exchange);
  }
  res.end("data: [DONE]\n\n");
}

/** Drops the connection mid-reply, as a failing provider would (`dropAfterChars`), once what was written has left. */
async function drop(exchange: Exchange): Promise<void> {
  exchange.dropped = true;
  const { res } = exchange;
  // An SSE comment, which readers skip: its callback says the chunks before it were flushed.
  if (res.headersSent) await new Promise<void>((resolve) => res.write(": dropped\n\n", () => resolve()));
  res.destroy();
}

// ---------------------------------------------------------------------------------------
// Holds

interface HoldPoint {
  hold: Hold;
  /** Characters of a streamed answer sent before the hold falls; 0 before anything is sent. */
  afterChars: number;
}

/** A step's holds in the order a reply meets them. */
function holdPoints(step: ScriptStep): HoldPoint[] {
  const points = [...(step.hold ? [{ hold: step.hold, afterChars: step.holdAfterChars ?? 0 }] : []), ...(step.holds ?? [])];
  return points.sort((a, b) => a.afterChars - b.afterChars);
}

/** What a hold does inside the server; tests only see `reached` and `release()`. */
const gates = new WeakMap<Hold, { arrive(request: ChatRequest): void; opened: Promise<void> }>();

function createHold(): Hold {
  let arrive!: (request: ChatRequest) => void;
  let open!: () => void;
  const reached = new Promise<ChatRequest>((resolve) => (arrive = resolve));
  const opened = new Promise<void>((resolve) => (open = resolve));
  const hold: Hold = { reached, release: () => open() };
  gates.set(hold, { arrive, opened });
  return hold;
}

/** Waits until the hold is released, or the client hangs up (the reply is then never sent). */
function waitAt(hold: Hold, exchange: Exchange): Promise<void> {
  const gate = gates.get(hold)!;
  gate.arrive(exchange.request);
  if (exchange.hungUp) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      exchange.res.off("close", done);
      resolve();
    };
    exchange.res.once("close", done);
    void gate.opened.then(done);
  });
}

// ---------------------------------------------------------------------------------------
// Injected errors

function sendInjectedError(res: ServerResponse, injected: NonNullable<ScriptStep["errors"]>[number]): void {
  const { status, retryAfterSeconds, message } =
    typeof injected === "object" ? injected : { status: injected, retryAfterSeconds: undefined, message: undefined };
  switch (status) {
    case 429:
      // retry-after is what the client (and our own retry policy) should honour.
      return sendJson(
        res,
        429,
        errorBody(message ?? "Rate limit reached for requests (scripted).", "requests", "rate_limit_exceeded"),
        { "retry-after": String(retryAfterSeconds ?? 0) },
      );
    case 500:
      return sendJson(res, 500, errorBody("The server had an error while processing your request (scripted).", "server_error", null));
    case 503:
      return sendJson(res, 503, errorBody("The server is overloaded, please try again later (scripted).", "server_error", null));
    case 401:
      return sendJson(res, 401, errorBody("Incorrect API key provided (scripted).", "invalid_request_error", "invalid_api_key"));
    case 400:
      return sendJson(res, 400, errorBody("Invalid request (scripted).", "invalid_request_error", null));
    case "context_length_exceeded":
      return sendJson(
        res,
        400,
        errorBody(
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. Please reduce the length of the messages.",
          "invalid_request_error",
          "context_length_exceeded",
          "messages",
        ),
      );
    case "string_above_max_length":
      return sendJson(
        res,
        400,
        errorBody(
          "Invalid 'messages[1].content': string too long. Expected a string with maximum length 10485760, but got a string with length 10485761 instead.",
          "invalid_request_error",
          "string_above_max_length",
          "messages[1].content",
        ),
      );
  }
}

function errorBody(message: string, type: string, code: string | null, param: string | null = null): unknown {
  return { error: { message, type, param, code } };
}

// ---------------------------------------------------------------------------------------
// Helpers

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Waits `ms`, returning early if the client hangs up so an abort is not answered late. */
function pause(ms: number, exchange: Exchange): Promise<void> {
  if (ms <= 0 || exchange.hungUp) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      exchange.res.off("close", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    exchange.res.once("close", done);
  });
}

/** Runs test-supplied code, turning a throw into a loud script failure. */
function callScriptCode<T>(fn: () => T, context: string): T {
  try {
    return fn();
  } catch (error) {
    throw new ScriptFailure(`${context}: ${errorMessage(error)}`);
  }
}

function split(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

function charsOfMessages(messages: ChatMessage[]): number {
  return messages.reduce((sum, message) => {
    const content = typeof message.content === "string" ? message.content.length : 0;
    const calls = message.role === "assistant" ? charsOfToolCalls(message.tool_calls ?? []) : 0;
    return sum + content + calls;
  }, 0);
}

function charsOfToolCalls(calls: ToolCall[]): number {
  return calls.reduce((sum, call) => sum + call.function.name.length + call.function.arguments.length, 0);
}

const estimateTokens = (chars: number): number => Math.max(1, Math.ceil(chars / 4));

// A NUL separator cannot appear ambiguously in the numeric turn, so keys never collide.
const attemptKey = (conversation: string, turn: number): string => `${conversation}\u0000${turn}`;
const attemptConversation = (key: string): string => key.slice(0, key.lastIndexOf("\u0000"));

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    // Resolve even if the server was already closed: close() is called from teardown paths.
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
