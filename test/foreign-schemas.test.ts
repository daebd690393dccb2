/**
 * Schemas that are not instances of this package's zod: the user's own copy of zod (here
 * zod/mini, whose schemas fail `instanceof z.ZodType` just as another copy's may) and
 * any library with Standard Schema and Standard JSON Schema support. They are told apart
 * by their `~standard` property, so tools and deferrals take them like our own zod's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import * as zm from "zod/mini";
import { type AgentClient, defineAgent, defineTool, type JsonObject, InvalidDefinitionError } from "../src/index.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";

/** A schema from "another library": Standard Schema plus Standard JSON Schema, and nothing of zod. */
function standardSchema<T>(json: JsonObject, check: (value: unknown) => value is T) {
  return {
    "~standard": {
      version: 1 as const,
      vendor: "elsewhere",
      validate: (value: unknown) => (check(value) ? { value } : { issues: [{ message: "not what was asked for", path: [{ key: "approved" }] }] }),
      jsonSchema: { input: () => ({ $schema: "https://json-schema.org/draft/2020-12/schema", ...json }) },
    },
  };
}

const approvalJson: JsonObject = { type: "object", properties: { approved: { type: "boolean" } }, required: ["approved"] };
const Approval = standardSchema(approvalJson, (v): v is { approved: boolean } => typeof (v as { approved?: unknown })?.approved === "boolean");
const City = zm.object({ city: zm.string() });

const links: Array<{ runId: string; token: string }> = [];

const book = defineTool({
  name: "book",
  description: "Books a trip, once someone approves",
  input: City,
  handler: ({ city }, ctx) => {
    links.push({ runId: ctx.runId, token: ctx.deferral.token });
    return ctx.defer({ schema: Approval as never, meta: { city } });
  },
});

const travel = defineAgent({ id: "travel", model: "gpt-4.1-mini", system: "You book trips.", tools: [book], maxTurns: 4 });

let h: Harness;
let agents: AgentClient;

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([travel], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } }));
});
afterAll(() => h?.close());

describe("schemas from another copy of zod or another library", () => {
  it("are what the test says they are: not instances of this package's zod", () => {
    expect(City instanceof z.ZodType).toBe(false);
    expect(Approval instanceof z.ZodType).toBe(false);
  });

  it("define tools; anything without ~standard is still refused", () => {
    expect(() => defineTool({ name: "other", description: "x", input: Approval as never, handler: () => "ok" })).not.toThrow();
    expect(() => defineTool({ name: "bad", description: "x", input: { parse: () => 1 } as never, handler: () => "ok" })).toThrow(InvalidDefinitionError);
  });

  it("describe the tool to the model, check its arguments, and give a deferral its payload schema", async () => {
    const runId = uid("foreign");
    h.model.script(runId, [
      {
        check: (req) => expect(req.tools).toEqual([
          { type: "function", function: { name: "book", description: "Books a trip, once someone approves", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } },
        ]),
        toolCalls: [{ name: "book", arguments: { city: 7 } }],
      },
      {
        check: (req) => expect(req.messages.at(-1)?.content).toMatch(/^Error: invalid arguments for "book":\n✖ .*\n {2}→ at city$/),
        toolCalls: [{ name: "book", arguments: { city: "Oslo" } }],
      },
      { check: (req) => expect(req.messages.at(-1)?.content).toBe(JSON.stringify({ approved: true })), text: "Booked Oslo." },
    ]);
    const ack = await agents.run(travel, { prompt: runId, runId });
    expect(ack).toMatchObject({ status: "deferred", schema: approvalJson });

    const token = links.find((l) => l.runId === runId)!.token;
    await expect(agents.resume({ token, payload: { approved: "yes" } })).rejects.toMatchObject({ code: "RC5049" });
    const resumed = await agents.resume({ token, payload: { approved: true } });
    expect(resumed.outcome).toMatchObject({ status: "completed", result: { text: "Booked Oslo." } });
    h.model.assertNoFailures();
  });
});
