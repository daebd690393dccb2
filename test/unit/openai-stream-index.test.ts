/**
 * The streamed tool calls' `index` is the provider's to choose: the adapter keys calls by it
 * in a Map, so an index like "constructor" cannot reach Array's prototype.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openaiModel } from "../../src/model/openai.js";

let server: Server;
let url: string;
/** The tool-call deltas the next streamed answer carries. */
let deltas: unknown[] = [];

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    const chunk = (delta: unknown, extra: object = {}) =>
      res.write(`data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`);
    for (const tc of deltas) chunk({ tool_calls: [tc] });
    res.write(`data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } })}\n\n`);
    res.end("data: [DONE]\n\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const complete = () =>
  openaiModel({ baseURL: url, apiKey: "x" }).complete({ model: "m", messages: [{ role: "user", content: "hi" }], tools: [], onDelta: () => undefined });

describe("streamed tool calls", () => {
  it("are assembled in index order", async () => {
    deltas = [
      { index: 1, id: "b", type: "function", function: { name: "second", arguments: "{}" } },
      { index: 0, id: "a", type: "function", function: { name: "first", arguments: '{"x"' } },
      { index: 0, function: { arguments: ":1}" } },
    ];
    const { message } = await complete();
    expect(message.tool_calls?.map((c) => [c.id, c.function.name, c.function.arguments])).toEqual([
      ["a", "first", '{"x":1}'],
      ["b", "second", "{}"],
    ]);
  });

  it.each(["constructor", "__proto__", -1, 1.5, null])("refuse an index of %j without touching prototypes", async (index) => {
    deltas = [{ index, id: "a", type: "function", function: { name: "f", arguments: "{}" } }];
    await expect(complete()).rejects.toThrow(/index/);
    expect((Array as unknown as { id?: unknown }).id).toBeUndefined();
    expect(({} as { id?: unknown }).id).toBeUndefined();
  });
});
