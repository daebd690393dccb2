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
  "typed-output.ts": {
    script: (model) => model.script("I was charged twice!", [{ text: '{"category":"billing","urgent":true}' }]),
    prints: [/^billing$/m, /output: \{"category":"billing","urgent":true\}/],
  },
  "sub-agents.ts": {
    script: (model) => {
      model.script("An article on durable execution", [
        { check: (request) => expect(toolNames(request)).toEqual(["researcher"]), toolCalls: [{ name: "researcher", arguments: { prompt: "Sources on durable execution" } }] },
        { check: (request) => expect(request.messages.at(-1)?.content).toContain("Three sources"), text: "Durable execution, in short: work that survives crashes." },
      ]);
      model.script("Sources on durable execution", [
        { toolCalls: [{ name: "search", arguments: { q: "durable execution" } }] },
        { check: (request) => expect(request.messages.at(-1)?.content).toBe("results for durable execution"), text: "Three sources on durable execution." },
      ]);
    },
    prints: [/Durable execution, in short: work that survives crashes\. \(4 turns\)/],
  },
  "run-stream.ts": {
    script: (model) => model.script("Draft the release notes", [{ text: "Release notes: faster resumes, fewer actions, and a quickstart you can paste." }]),
    prints: [/final: Release notes: faster resumes, fewer actions, and a quickstart you can paste\./],
  },
  "cancellation.ts": {
    script: (model) => {
      model.script("Pay invoice 41", [{ toolCalls: [{ name: "sendPayout", arguments: { invoiceId: "41" } }] }]);
      model.script("Pay invoice 42", [{ toolCalls: [{ name: "sendPayout", arguments: { invoiceId: "42" } }] }]);
    },
    prints: [/before: deferred/, /AI1005: customer withdrew, after 1 turn\(s\)/],
  },
  "deferral.ts": {
    script: (model) =>
      model.script("Pay invoice 42", [
        { toolCalls: [{ name: "askApproval", arguments: { amount: 42 } }] },
        { check: (request) => expect(JSON.parse(String(request.messages.at(-1)?.content))).toEqual({ approved: true }), text: "Approved: paying invoice 42." },
      ]),
    prints: [/email: Approve 42\? …/, /run: deferred/, /resume: resumed .*"status":"completed".*Approved: paying invoice 42\./],
  },
  "approval-gated-tool.ts": {
    script: (model) => model.script("Pay invoice INV-7, €1500", [{ toolCalls: [{ name: "sendPayout", arguments: { invoiceId: "INV-7", amountEur: 1500 } }] }, { text: "Paid INV-7." }]),
    prints: [/mail to finance@example\.com: https:\/\/ops\.example\.com\/approve…/, /waiting: sendPayout \{"invoiceId":"INV-7","amountEur":1500\}, meta .*payouts:approve/, /paid INV-7: €1500/, /decided: resumed .*Paid INV-7\./],
  },
  "ai-sdk-model.ts": {
    script: (model) => model.script("Where is my order?", [{ check: (request) => expect(request.model).toBe("llama3.1:8b"), text: "It shipped yesterday." }]),
    prints: [/answer: It shipped yesterday\./],
  },
  "model-fallback.ts": {
    // The gateway's model is out; the next name on the list answers, in the same attempt.
    script: (model) => model.respond("Is the gateway up?", (request) => (request.model === "gpt-4.1" ? { errors: [503] } : { text: `Yes, through ${request.model}.` })),
    prints: [/answer: Yes, through gpt-4\.1-mini\.; fallback usage: .*gpt-4\.1-mini/],
  },
  "model-fallback-openai.ts": {
    script: (model) => model.respond("Is the gateway still up?", (request) => (request.model === "gpt-4.1" ? { errors: [503] } : { text: `Yes, through ${request.model}.` })),
    prints: [/answer: Yes, through llama3\.1:8b\.; fallback usage: .*llama3\.1:8b/],
  },
  "encryption.ts": {
    script: (model) => model.script("My card number is 4111 1111 1111 1111", [{ text: "I will not store that." }]),
    prints: [/answer: I will not store that\./, /stored as binary\/encrypted; the card number in the clear: false/],
  },
  "tracing.ts": {
    script: (model) => model.script("Trace this answer", [{ text: "Traced." }]),
    prints: [/answer: Traced\./, /spans: chat gpt-4\.1-mini, invoke_agent support/, /metrics: gen_ai\.client\.operation\.duration, gen_ai\.client\.token\.usage/],
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
    // The examples that route model names to servers: every server is the scripted model here.
    OLLAMA_BASE_URL: model.url,
    GATEWAY_BASE_URL: model.url,
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
