/**
 * `defineAgent({ output })` as it is declared (AI1001 for what cannot work) and the check a
 * final answer goes through: JSON (a fenced block accepted), then the schema.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent } from "../../src/index.js";
import { checkOutput } from "../../activities/structured-output.js";

const base = { id: "typed", model: "gpt-4.1", system: "You answer." };
const Point = z.object({ x: z.number(), y: z.number().default(0) });

describe("output on defineAgent", () => {
  it("keeps the schema and the correction bound (default 2)", () => {
    const agent = defineAgent({ ...base, output: Point });
    expect(agent.output).toBe(Point);
    expect(agent.outputRetries).toBe(2);
    expect(defineAgent({ ...base, output: Point, outputRetries: 0 }).outputRetries).toBe(0);
    expect(defineAgent(base)).not.toHaveProperty("output");
  });

  it.each([
    ["a JSON Schema object instead of a schema", { output: { type: "object" } }, /output must be a schema/],
    ["a string", { output: "json" }, /output must be a schema/],
    ["negative retries", { output: Point, outputRetries: -1 }, /outputRetries must be a whole number from 0 to 5/],
    ["too many retries", { output: Point, outputRetries: 6 }, /outputRetries/],
    ["fractional retries", { output: Point, outputRetries: 1.5 }, /outputRetries/],
  ])("refuses %s with AI1001", (_, extra, message) => {
    expect(() => defineAgent({ ...base, ...(extra as object) })).toThrow(expect.objectContaining({ code: "AI1001", message: expect.stringMatching(message) }));
  });
});

describe("checkOutput", () => {
  it("parses JSON, in a fenced block too, and applies the schema (defaults included)", async () => {
    await expect(checkOutput(Point, '{"x":1}')).resolves.toEqual({ ok: true, value: { x: 1, y: 0 } });
    await expect(checkOutput(Point, '```json\n{"x":2,"y":3}\n```')).resolves.toEqual({ ok: true, value: { x: 2, y: 3 } });
    await expect(checkOutput(Point, 'Here is the point:\n```json\n{"x":4}\n```\nAsk if you need more.')).resolves.toEqual({ ok: true, value: { x: 4, y: 0 } });
    // JSON whose text holds a fence is read whole, never as the block inside it.
    await expect(checkOutput(z.object({ md: z.string() }), JSON.stringify({ md: '```json\n{"x":9}\n```' }))).resolves.toEqual({ ok: true, value: { md: '```json\n{"x":9}\n```' } });
  });

  it.each([
    ["no content", null, /not JSON/],
    ["prose", "The point is (1, 2).", /not JSON/],
    ["a wrong type", '{"x":"1"}', /x/],
    ["an array", "[1,2]", /object/],
    ["a truncated answer", '{"x": 1', /not JSON/],
    ["two fenced blocks (which one is the answer?)", '```json\n{"x":1}\n```\nor\n```json\n{"x":2}\n```', /not JSON/],
    ["a fenced block of another language", 'Try:\n```python\nprint({"x": 1})\n```', /not JSON/],
  ])("says what is wrong with %s", async (_, content, problem) => {
    const checked = await checkOutput(Point, content);
    expect(checked).toEqual({ ok: false, problem: expect.stringMatching(problem) });
  });

  it("keeps the problem short whatever the answer's size", async () => {
    const many = z.object(Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`field${i}`, z.string()])));
    const checked = await checkOutput(many, "{}");
    expect(checked.ok).toBe(false);
    expect(checked.ok === false && checked.problem.length).toBeLessThanOrEqual(2_000);
  });
});
