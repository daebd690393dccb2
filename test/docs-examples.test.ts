/**
 * Every example the docs show runs. Each file under examples/docs/ is a program, run here as a
 * reader runs it (`npx tsx examples/docs/<name>.ts`), against the suite's Temporal server and
 * a scripted model that answers what the example asks; the page shows the part between its
 * `// ---cut---` and `// ---end---` lines (scripts/docs-snippets.ts). Each case says what
 * the example prints once it did what its page says, and the example must end by itself.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startScriptedModelServer, type ChatRequest, type ScriptedModelServer } from "../src/testing/index.js";
import { freePort } from "./cli-support.js";
import { BUNDLE_PATH_ENV } from "./workflow-bundle.js";

const root = fileURLToPath(new URL("..", import.meta.url));

interface Example {
  /** What the scripted model answers the example's conversations. */
  script?(model: ScriptedModelServer): void;
  /** What its output holds when it did what its page says, in order. */
  prints: RegExp[];
}

/** The tools a model request offered, by name. */
const toolNames = (request: ChatRequest) => (request.tools ?? []).map((t) => (t as { function: { name: string } }).function.name);

const EXAMPLES: Record<string, Example> = {
  "quickstart.ts": {
    script: (model) =>
      model.script("Weather in Oslo?", [
        {
          check: (request) => expect(toolNames(request)).toEqual(["getWeather"]),
          toolCalls: [{ name: "getWeather", arguments: { city: "Oslo" } }],
        },
        {
          check: (request) => expect(JSON.parse(String(request.messages.at(-1)?.content))).toEqual({ city: "Oslo", celsius: 4 }),
          text: "It is 4 °C in Oslo.",
        },
      ]),
    prints: [/status: 'completed'/, /text: 'It is 4 °C in Oslo\.'/, /4 messages, the last: It is 4 °C in Oslo\./],
  },
};

let model: ScriptedModelServer;
const secrets = { DEFERRAL_SECRET: randomBytes(32).toString("base64"), PAYLOAD_KEY: randomBytes(32).toString("base64") };

beforeAll(async () => {
  model = await startScriptedModelServer();
});
afterAll(async () => {
  await model?.close();
});

/** Runs examples/docs/`file` as a process of its own; resolves once it ended. */
async function runExample(file: string): Promise<{ code: number; output: string }> {
  const env = {
    ...process.env,
    ...secrets,
    TEMPORAL_ADDRESS: inject("temporalAddress"),
    TEMPORAL_NAMESPACE: inject("temporalNamespace"),
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: "scripted",
    PORT: String(await freePort()),
    [BUNDLE_PATH_ENV]: inject("workflowBundlePath"),
  };
  return new Promise((resolve) => {
    execFile(process.execPath, [`${root}node_modules/tsx/dist/cli.mjs`, `examples/docs/${file}`], { cwd: root, env, timeout: 90_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: `${stdout}\n--- stderr ---\n${stderr}` }),
    );
  });
}

describe("the docs' examples", () => {
  it.each(Object.entries(EXAMPLES))("%s runs and does what its page says", async (file, example) => {
    example.script?.(model);
    const { code, output } = await runExample(file);
    let from = 0;
    for (const pattern of example.prints) {
      const found = pattern.exec(output.slice(from));
      expect(found, `${file} did not print ${pattern} (after what it printed before):\n${output}`).not.toBeNull();
      from += found!.index + found![0].length;
    }
    expect(code, output).toBe(0);
    model.assertNoFailures();
  });
});
