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
import { readdirSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { startReactHost } from "../examples/docs-support/react-host/server.js";
import { AgentClient, defineAgent } from "../src/index.js";
import { startRedis, startScriptedModelServer, type ChatRequest, type Hold, type RedisServerHandle, type ScriptedModelServer } from "../src/testing/index.js";
import { launchChromium } from "./chromium.js";
import { startHarness, uid, type Harness } from "./harness.js";
import { BUNDLE_PATH_ENV } from "./workflow-bundle.js";

const root = fileURLToPath(new URL("..", import.meta.url));

interface Example {
  /** What the scripted model answers the example's conversations. */
  script?(model: ScriptedModelServer): void;
  /** What the test does while the example runs (lets a held answer go once the example stopped it). */
  during?(model: ScriptedModelServer): Promise<void>;
  /** What its output holds when it did what its page says, in order. */
  prints: RegExp[];
  /**
   * The program that runs it, when it is not the file itself: a workflow module runs only in
   * a worker's bundle (examples/docs-support/ has the worker for each).
   */
  run?: string;
  /** Other files under examples/docs/ this case runs too. */
  covers?: string[];
}

/** Held by the threads example's first answer, until the example's stop has reached the model. */
let firstAnswer: Hold;

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
  "schedules.ts": {
    script: (model) =>
      model.script("Reconcile yesterday's payouts", [
        { check: (request) => expect(toolNames(request)).toEqual(["holdPayout"]), toolCalls: [{ name: "holdPayout", arguments: { payoutId: "po_17" } }] },
        { check: (request) => expect(request.messages.at(-1)?.content).toBe("held po_17"), text: "Reconciled; po_17 is held for finance." },
      ]),
    prints: [/reconcile-every-morning-\d{4}-\d{2}-\d{2}T[\d:]+Z waits on finance: holdPayout \{"payoutId":"po_17"\}/, /answer: Reconciled; po_17 is held for finance\./],
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
  "thread-compaction.ts": {
    script: (model) => {
      // Each turn's request opens with the turn it keeps (the older ones are a summary by then).
      model.script("Plan three days in Lisbon for two people in May, please.", [{ text: "Day 1 Alfama, day 2 Belém, day 3 LX Factory." }]);
      // The summary before them is an assistant message too, so these are not their conversations' first turns.
      model.respond("Add a day trip to Sintra on the second day.", () => ({ text: "Day 2 is now Sintra; Belém moves to day 3." }));
      model.respond("Which museums should we book ahead?", () => ({ text: "Book the Gulbenkian and the Tile Museum." }));
      // The summarizer's requests hold the whole compacted text, so they have no fixed key:
      // answered by what its prompt is; anything else unscripted still fails loudly.
      model.respondToAny((request) => {
        if (request.model !== "gpt-4.1-nano" || !String(request.messages[0]?.content).startsWith("Summarize the trip")) {
          throw new Error(`no script for conversation ${JSON.stringify(request.conversation)}`);
        }
        return { text: "Lisbon, 3 days in May, for two." };
      });
    },
    prints: [/^compacted 2 messages: \d+ → \d+ bytes$/m, /^compacted 3 messages: \d+ → \d+ bytes$/m, /^7 messages; the first: Plan three days in Lisbon for two people in May, please\.$/m],
  },
  "tool-progress.ts": {
    script: (model) =>
      model.script("Build the Q3 report", [{ toolCalls: [{ name: "buildReport", arguments: { quarter: "Q3" } }] }, { text: "The Q3 report is ready." }]),
    prints: [/^buildReport: section 3 of 3$/m, /^The Q3 report is ready\.$/m],
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
  "approval-policy.ts": {
    script: (model) => {
      model.script("Refund order A-1, €20", [
        { toolCalls: [{ name: "refund", arguments: { orderId: "A-1", amountEur: 20 } }] },
        { check: (request) => expect(request.messages.at(-1)?.content).toBe("refunded A-1: €20"), text: "Refunded A-1." },
      ]);
      model.script("Refund order B-2, €4000", [
        { toolCalls: [{ name: "refund", arguments: { orderId: "B-2", amountEur: 4000 } }] },
        {
          check: (request) => expect(request.messages.at(-1)?.content).toMatch(/^Rejected by policy: "refund" was not run\. Reason: refunds over €1000 need a support ticket/),
          text: "B-2 needs a support ticket first.",
        },
      ]);
    },
    prints: [/Refund order A-1, €20: completed, Refunded A-1\./, /Refund order B-2, €4000: completed, B-2 needs a support ticket first\./],
  },
  "approval-respond.ts": {
    script: (model) =>
      model.script("Pay ACME €300", [
        { toolCalls: [{ name: "sendPayout", arguments: { to: "ACME", amountEur: 300 } }] },
        { check: (request) => expect(JSON.parse(String(request.messages.at(-1)?.content))).toEqual({ status: "sent", reference: "paid by cheque 1041" }), text: "Paid ACME by cheque." },
      ]),
    prints: [/refused: RC5049/, /decided: resumed .*Paid ACME by cheque\./],
  },
  "approval-per-call.ts": {
    script: (model) =>
      model.script("Pay ACME, Globex and Initech", [
        { toolCalls: [{ name: "sendPayout", arguments: { to: "ACME", amountEur: 100 } }, { name: "sendPayout", arguments: { to: "Globex", amountEur: 200 } }, { name: "sendPayout", arguments: { to: "Initech", amountEur: 300 } }] },
        {
          // Results land as calls are decided (a rejection at once, an approval once its tool answered): any order.
          check: (request) => {
            const results = request.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
            expect(results).toHaveLength(3);
            expect(results).toEqual(expect.arrayContaining(["sent €300 to Initech", "sent €100 to ACME", expect.stringMatching(/^Rejected by cfo: .*duplicate invoice/)]));
          },
          text: "Paid ACME and Initech.",
        },
      ]),
    prints: [/first: resumed deferred/, /last: resumed .*Paid ACME and Initech\./],
  },
  "approval-remind.ts": {
    script: (model) => model.script("Pay invoice INV-9, €800", [{ toolCalls: [{ name: "sendPayout", arguments: { invoiceId: "INV-9", amountEur: 800 } }] }, { text: "Paid INV-9." }]),
    prints: [/mail to finance@example\.com: asked/, /mail to finance@example\.com: reminder 1/, /page cfo: escalated, requires payouts:cfo/, /now requires: \["payouts:cfo"\]/, /fiona: RC5056/, /decided: resumed .*Paid INV-9\./],
  },
  "approval-permission.ts": {
    script: (model) =>
      model.script("Refund orders A-1 (€20), A-2 (€30) and A-3 (€80)", [
        { toolCalls: [{ name: "refund", arguments: { orderId: "A-1", amountEur: 20 } }] },
        { toolCalls: [{ name: "refund", arguments: { orderId: "A-2", amountEur: 30 } }, { name: "refund", arguments: { orderId: "A-3", amountEur: 80 } }] },
        {
          check: (request) => expect(request.messages.filter((m) => m.role === "tool").map((m) => String(m.content))).toEqual(["refunded A-1: €20", "refunded A-2: €30", expect.stringMatching(/^Rejected: "refund" was not run\. Reason: over the limit/)]),
          text: "Refunded A-1 and A-2; A-3 is over the limit.",
        },
      ]),
    prints: [/after the grant: deferred/, /#\S+ refund until 20\d\d-\S+ granted by fiona/, /revoked; then: .*"completed".*A-3 is over the limit/],
  },
  "approval-permission-policy.ts": {
    script: (model) =>
      model.respond("Refund order C-3, €60", (request) => (request.messages.at(-1)?.role === "tool" ? { text: String(request.messages.at(-1)?.content) } : { toolCalls: [{ name: "refund", arguments: { orderId: "C-3", amountEur: 60 } }] })),
    prints: [/sam: completed/, /ann: deferred/],
  },
  "approval-history.ts": {
    script: (model) => model.script("Pay ACME €1200", [{ toolCalls: [{ name: "sendPayout", arguments: { to: "ACME", amountEur: 1200 } }] }, { text: "Paid ACME." }]),
    prints: [/^\S+ asked$/m, /decided approved by fiona \[\{"path":"\/amountEur","from":1200,"to":1000\}\] capped at the contract/],
  },
  "approval-history-principal.ts": {
    script: (model) => {
      for (const [prompt, to, amountEur] of [["Pay ACME €1200", "ACME", 1200], ["Pay Globex €80", "Globex", 80], ["Pay Initech €15", "Initech", 15]] as const) {
        model.script(prompt, [{ toolCalls: [{ name: "sendPayout", arguments: { to, amountEur } }] }, { text: `Paid ${to}.` }]);
      }
    },
    prints: [/^\S+ dfr:\S+ approved by fiona$/m, /^\S+ dfr:\S+ approved by fiona$/m, /^customer-42: 2 requests$/m],
  },
  "approval-context.ts": {
    script: (model) =>
      model.script("Order A-17 arrived broken, refund me", [
        { toolCalls: [{ name: "lookupOrder", arguments: { order: "A-17" } }] },
        { text: "The order arrived damaged: I ask to refund €40.", toolCalls: [{ name: "sendRefund", arguments: { to: "ann", amountEur: 40 } }] },
        { text: "Refunded." },
      ]),
    prints: [/acts for ann/, /asked: Order A-17 arrived broken, refund me/, /tool lookupOrder said: order A-17: arrived damaged, paid €40/, /agent said: The order arrived damaged: I ask to refund €40\./, /finance sees the call alone: sendRefund false/],
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
  "compaction.ts": {
    script: (model) =>
      model.script("Pay the ledger's total", [
        { toolCalls: [{ name: "readLedger", arguments: {} }] },
        { toolCalls: [{ name: "askApproval", arguments: { amount: 120 } }] },
        // After the rewrite: the model is sent the summary, not the 600 lines.
        { check: (request) => expect(request.messages.map((m) => String(m.content ?? "").length).every((length) => length < 1000)).toBe(true), text: "Paid 120." },
      ]),
    prints: [/listed \d+ \(more: false\); record deferred with \d+ messages; asks askApproval \{"amount":120\}/, /result: Paid 120\.; the transcript now: user: Pay the ledger's total \| assistant: Summary so far: the ledger lists 600 paid invoices of 120 EUR\. \| assistant: \(calls\) \| tool: \{"approved":true\} \| assistant: Paid 120\./],
  },
  "http-handler.ts": {
    script: (model) => model.script("Hello over HTTP", [{ text: "Hello from the front door." }]),
    prints: [/POST \/agents\/runs: 200 .*"status":"completed".*Hello from the front door\./],
  },
  "console.ts": {
    script: (model) => model.script("Where is my parcel?", [{ text: "It is on its way." }]),
    // The address it bound: PORT=0 here, so a port of its own, not 0.
    prints: [/console: http:\/\/localhost:[1-9]\d*\/console\n/, /GET \/console\/runs\/console-\d+: 200, shows the answer: true/, /without a session: 401/],
  },
  "codec-server.ts": {
    prints: [/encode: 200 binary\/encrypted; decode: 200 "the customer's IBAN"/, /someone else: 403/],
  },
  "mcp-server.ts": {
    script: (model) => model.script("Report on durable agents", [{ text: '{"title":"Durable agents","score":9}' }]),
    prints: [/tools: .*payout.*report/, /report: .*"title":"Durable agents","score":9/],
  },
  "mcp-approvals.ts": {
    script: (model) =>
      model.script("Pay ACME and Globex", [
        { toolCalls: [{ name: "sendPayout", arguments: { to: "ACME", amountEur: 100 } }, { name: "sendPayout", arguments: { to: "Globex", amountEur: 200 } }] },
        {
          check: (request) => expect(request.messages.filter((m) => m.role === "tool").map((m) => String(m.content))).toEqual(["sent €100 to ACME", expect.stringMatching(/^Rejected by fiona: .*duplicate invoice/)]),
          text: "Paid ACME.",
        },
      ]),
    prints: [/acts for sam asks .*ACME.* and .*Globex/, /ian: refused .*RC5056/, /acme: resumed deferred/, /globex: .*"status":"resumed".*Paid ACME\./, /history: asked decided decided/],
  },
  "mcp-tools.ts": {
    script: (model) =>
      model.script("Triage the new issues", [
        { toolCalls: [{ name: "gh_list_issues", arguments: {} }, { name: "read_file", arguments: { path: "README.md" } }] },
        {
          check: (request) => {
            const results = request.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
            expect(results[0]).toContain("A 1.0 a team can adopt");
            expect(results[1]).toMatch(/^# durable-agents\n/);
          },
          text: "Issue 48 is about the 1.0.",
        },
      ]),
    prints: [/tools: gh_list_issues, read_file/, /answer: Issue 48 is about the 1\.0\./],
  },
  "stream-transport.ts": {
    prints: [/closed: 3 transports/],
  },
  "plugin-worker.ts": {
    script: (model) => model.script("Weather in Bergen?", [{ text: "Rain, 9 °C." }]),
    prints: [/agent: Rain, 9 °C\./, /expense: deferred/, /expense: .*"status":"completed".*"status":"booked"/],
  },
  "threads.ts": {
    script: (model) => {
      firstAnswer = model.hold();
      model.script("Where is my order?", [
        { hold: firstAnswer, toolCalls: [{ name: "askManager", arguments: { question: "May we refund order 1234?" } }] },
        { text: "The manager approved the refund." },
        { toolCalls: [{ name: "lookup", arguments: { email: "ann@example.com" } }, { name: "renderPdf", arguments: { id: "1234" } }] },
        { text: "Order 1234 ships Monday: https://files.example.com/1234.pdf" },
      ]);
    },
    // The example stops the thread while its first answer is held: once the stop reached the model, the answer may come.
    during: async (model) => {
      await vi.waitFor(() => expect(model.aborted.some((a) => a.conversation === "Where is my order?")).toBe(true), { timeout: 60_000, interval: 50 });
      firstAnswer.release();
    },
    prints: [/slack: May we refund order 1234\?/, /status: completed; \d+ entries shown; statuses .*→stopped.*stopped→/, /transcript: user:Where is my order\? \| assistant→askManager \| tool:\{"approved":true\} \| assistant:The manager approved the refund\. \| user:It was order 1234 \| assistant→lookup\+renderPdf \| tool:\{"name":"ann","orders":\["1234"\]\} \| tool:\{"url":"https:\/\/files\.example\.com\/1234\.pdf"\} \| assistant:Order 1234 ships Monday/],
  },
  "plain-workflow.ts": {
    run: "examples/docs-support/plain-workflow.ts",
    covers: ["plain-workflow-activity.ts"],
    prints: [/parked: deferred, record \{"requires":\["expenses:approve"\]\}/, /resumed: .*"status":"completed","result":\{"expenseId":"expense-\d+","approved":true\}/],
  },
  "upgrade-patched.ts": {
    run: "examples/docs-support/upgrade-patched.ts",
    prints: [/parked: deferred/, /audited expense-\d+/, /resumed: .*"status":"completed","result":true/],
  },
};

/**
 * The React examples (examples/docs/*.tsx), mounted by examples/docs-support/react-host in a
 * Chromium page, on the front door and a worker: each case opens the page on what it
 * prepared and says what the page shows once the example did what its page says.
 */
interface BrowserExample {
  /** Prepares a thread or a run; returns the page's query (after `example=`). */
  prepare(h: Harness, agents: AgentClient): Promise<Record<string, string>>;
  /** What the reader does on the page, then what the page shows. */
  check(page: Page, h: Harness): Promise<void>;
}

const support = defineAgent({ id: "support", model: "gpt-4.1-mini", system: "You help customers." });
const releaseNotes = defineAgent({ id: "release-notes", model: "gpt-4.1-mini", system: "You write release notes." });

const BROWSER_EXAMPLES: Record<string, BrowserExample> = {
  "chat-view.tsx": {
    async prepare(_h, agents) {
      const { threadId } = await agents.threads.createThread({ threadId: uid("sam-chat"), principal: { id: "sam" } });
      return { thread: threadId, user: "sam" };
    },
    async check(page, h) {
      const prompt = uid("Hello from the page");
      h.model.script(prompt, [{ text: "Hi, the support agent here." }]);
      await page.locator("input").fill(prompt);
      await page.locator("input").press("Enter");
      await page.getByText("assistant: Hi, the support agent here.").waitFor();
      await expect(page.getByText(`user: ${prompt}`).count()).resolves.toBe(1);
    },
  },
  "use-chat.tsx": {
    async prepare(h, agents) {
      const prompt = uid("What is durable execution?");
      h.model.script(prompt, [{ text: "Work that survives crashes." }]);
      const { threadId } = await agents.threads.createThread({ threadId: uid("sam-usechat"), prompt, principal: { id: "sam" } });
      await agents.threads.settled({ threadId, principal: { id: "sam" } });
      return { thread: threadId, user: "sam" };
    },
    async check(page) {
      await page.getByText("ready: 2 messages").waitFor();
    },
  },
  "use-chat-run.tsx": {
    async prepare(h, agents) {
      const runId = uid("notes");
      h.model.script(runId, [{ text: "Release notes: the docs' examples run." }]);
      await agents.run(releaseNotes, { prompt: runId, runId, principal: { id: "sam" } });
      return { run: runId, user: "sam" };
    },
    async check(page) {
      await page.getByText("ready: 2 messages").waitFor();
    },
  },
};

let model: ScriptedModelServer;
let redis: RedisServerHandle;
const secrets = { DEFERRAL_SECRET: randomBytes(32).toString("base64"), PAYLOAD_KEY: randomBytes(32).toString("base64") };

beforeAll(async () => {
  [model, redis] = await Promise.all([startScriptedModelServer(), startRedis()]);
});
afterAll(async () => {
  await model?.close();
  await redis?.stop();
});

/** Runs `program` (a path in the repository) as a process of its own; resolves once it ended. */
async function runExample(program: string): Promise<{ code: number; output: string }> {
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
    // Any free port: each example serves on the one it got (a port probed free here could be taken before it binds).
    PORT: "0",
    REDIS_URL: redis.url,
    [BUNDLE_PATH_ENV]: inject("workflowBundlePath"),
  };
  return new Promise((resolve) => {
    execFile(process.execPath, [`${root}node_modules/tsx/dist/cli.mjs`, program], { cwd: root, env, timeout: 90_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: `${stdout}\n--- stderr ---\n${stderr}` }),
    );
  });
}

describe("the docs' examples", () => {
  it("are each run here (a file under examples/docs/ with no case fails)", () => {
    const cases = [...Object.entries(EXAMPLES).flatMap(([file, example]) => [file, ...(example.covers ?? [])]), ...Object.keys(BROWSER_EXAMPLES)];
    expect(readdirSync(`${root}examples/docs`).sort()).toEqual(cases.sort());
  });

  it.each(Object.entries(EXAMPLES))("%s runs and does what its page says", async (file, example) => {
    example.script?.(model);
    const [{ code, output }] = await Promise.all([runExample(example.run ?? `examples/docs/${file}`), example.during?.(model)]);
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

describe("the docs' React examples, in a browser", () => {
  let browser: Browser;
  let h: Harness;
  let agents: AgentClient;
  let host: Awaited<ReturnType<typeof startReactHost>>;
  beforeAll(async () => {
    // First: without a browser the file fails at once, saying what to install.
    browser = await launchChromium();
    h = await startHarness();
    ({ agents } = await h.worker([support, releaseNotes], { client: { threads: { agent: support } } }));
    host = await startReactHost(agents);
  });
  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await h?.close();
  });

  it.each(Object.entries(BROWSER_EXAMPLES))("%s renders and does what its page says", async (file, example) => {
    const query = new URLSearchParams({ example: file.replace(/\.tsx$/, ""), ...(await example.prepare(h, agents)) });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (err) => errors.push(err.message));
      page.on("response", (response) => void (response.status() >= 400 && !response.url().endsWith("/favicon.ico") && errors.push(`${response.status()} ${response.url()}`)));
      page.on("console", (message) => void (message.type() === "error" && !message.text().startsWith("Failed to load resource") && errors.push(message.text())));
      await page.goto(`${host.url}?${query}`);
      await example.check(page, h).catch(async (err: unknown) => {
        throw new Error(`${String(err)}\nThe page shows: ${await page.locator("body").innerText()}\nIts errors: ${errors.join("\n")}`);
      });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
    h.model.assertNoFailures();
  });
});
