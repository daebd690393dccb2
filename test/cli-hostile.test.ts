/**
 * The `durable-agents` command given what it must not trust: a model's text and tool
 * arguments carrying terminal control sequences (printed escaped, never raw), flag values
 * that mean nothing (a usage mistake, exit 2 from the spawned bin, before anything connects), and an encrypted
 * run read without the codec (AI1046, naming `--codec-endpoint`).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aesGcmCodec, type AgentClient } from "../src/index.js";
import { cliEnv, runCli, spawnCli } from "./cli-support.js";
import { encryptedWorker } from "./codec-support.js";
import { payoutAgent } from "./fixtures/approvals.js";
import { startHarness, SECRET, uid, type Harness } from "./harness.js";
import { chatAgent } from "./thread-support.js";

let h: Harness;
let agents: AgentClient;
let env: Record<string, string>;

beforeAll(async () => {
  h = await startHarness();
  const served = await h.worker([payoutAgent, chatAgent], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } });
  agents = served.agents;
  env = cliEnv(h, served.taskQueue);
}, 240_000);
afterAll(() => h?.close());

const cli = (args: string[], extraEnv: Record<string, string> = {}) => runCli(args, { ...env, ...extraEnv });

// Clear the screen, ring the bell, return to the line's start (to overwrite it), and a C1 CSI
// (ESC [ in one character) setting red: each acts on a terminal instead of being shown.
const HOSTILE = "clear\u001b[2J bell\u0007 back\rcsi\u009b31m red\nsecond line";
const RAW_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** What an operator's terminal would be sent, checked: no control character but newline and tab, each hostile one shown as its escape. */
function expectEscaped(printed: string) {
  expect(printed).not.toMatch(RAW_CONTROLS);
  for (const shown of ["\\u001b[2J", "\\u0007", "\\u000d", "\\u009b31m"]) expect(printed).toContain(shown);
}

describe("text from a model, as the command prints it", () => {
  it("escapes control characters in `runs state` and `deferrals show` (model text, tool arguments, a call id), and keeps the text readable", async () => {
    const runId = uid("cli-hostile");
    h.model.script(runId, [{ text: HOSTILE, toolCalls: [{ id: "call\u001b]0;owned\u0007", name: "askApproval", arguments: { amount: 5, note: HOSTILE } }] }]);
    const parked = await agents.run(payoutAgent, { prompt: runId, runId });
    if (parked.status !== "deferred") throw new Error(`expected a deferral, got ${parked.status}`);

    const [state, shown, json] = await Promise.all([cli(["runs", "state", runId]), cli(["deferrals", "show", parked.deferralId]), cli(["--json", "runs", "state", runId])]);
    expect(state.code).toBe(0);
    expectEscaped(state.stdout);
    // A line break in the model's text stays one, indented under its message: it cannot pass for a message of its own.
    expect(state.stdout).toContain("\n    second line");

    expect(shown.code).toBe(0);
    expectEscaped(shown.stdout);
    expect(shown.stdout).toContain("(call\\u001b]0;owned\\u0007)");

    // --json: still JSON with the same values, and nothing raw on the terminal either.
    expect(json.stdout).not.toMatch(RAW_CONTROLS);
    const read = JSON.parse(json.stdout) as { recentMessages: Array<{ role: string; content: string | null }> };
    expect(read.recentMessages.find((m) => m.role === "assistant")?.content).toBe(HOSTILE);
  });

  it("escapes them in a thread's streamed answer (`threads send`)", async () => {
    const { threadId } = await agents.threads.createThread({ agent: chatAgent, autoStart: false });
    const prompt = uid("hostile thread");
    h.model.script(prompt, [{ chunkDelay: 5, text: HOSTILE }]);
    const sent = await cli(["threads", "send", threadId, prompt]);
    expect(sent.code).toBe(0);
    expectEscaped(sent.stdout);
  });
});

describe("bad flag values", () => {
  it("are usage mistakes: exit 2 with a message naming the flag, before anything connects", async () => {
    const cases: Array<[string[], string]> = [
      [["deferrals", "list", "--status", "sideways"], "--status"],
      [["deferrals", "list", "--expiring-before", "not-a-date"], "--expiring-before"],
      [["deferrals", "list", "--limit", "abc"], "--limit"],
      [["deferrals", "show", "dfr:1:x", "--tail", "-3"], "--tail"],
      [["runs", "state", "some-run", "--tail", "abc"], "--tail"],
      [["runs", "tail", "some-run", "--interval", "soon"], "--interval"],
      [["runs", "tail", "some-run", "--interval", "0s"], "--interval"],
      [["threads", "list", "--limit", "lots"], "--limit"],
      [["dev", "--port", "abc"], "--port"],
      [["dev", "--ui-port", "99999"], "--ui-port"],
      [["mcp", "--agents", "./agents.js", "--port", "http"], "--port"],
      [["mcp", "--agents", "./agents.js", "--port", "0", "--allowed-host", "https://evil.example"], "--allowed-host"],
      [["mcp", "--agents", "./agents.js", "--port", "0", "--allowed-origin", "evil"], "--allowed-origin"],
      [["--codec-endpoint", "not a url", "runs", "state", "some-run"], "--codec-endpoint"],
    ];
    // An address nothing listens on: a command that got as far as connecting would fail otherwise
    // (exit 3). A command that took a bad value and started serving (`dev`, `mcp`) is stopped.
    const [fromEnv, ...results] = await Promise.all([
      cli(["runs", "state", "some-run"], { TEMPORAL_ADDRESS: "127.0.0.1:1", TEMPORAL_CODEC_ENDPOINT: "codec.example" }),
      ...cases.map(([args]) => spawnCli(args, { ...env, TEMPORAL_ADDRESS: "127.0.0.1:1" }, 60_000)),
    ]);
    cases.forEach(([args, flag], i) => {
      const result = results[i]!;
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr).toContain(`error: option '${flag}`);
      expect(result.stderr).toContain(`'${args[args.indexOf(flag) + 1]}' is invalid`);
    });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain('TEMPORAL_CODEC_ENDPOINT "codec.example" is invalid');
  });
});

describe("an encrypted run read without the codec", () => {
  it("prints AI1046 with the way out (--codec-endpoint) and exits 1, and shows nothing of the payload", async () => {
    const codec = aesGcmCodec({ keys: { k1: randomBytes(32) }, current: "k1" });
    const served = await encryptedWorker(h, [payoutAgent], codec);
    const runId = uid("cli-sealed");
    h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 4242 } }] }]);
    const ack = await served.agents.run(payoutAgent, { prompt: runId, runId });
    if (ack.status !== "deferred") throw new Error(`expected a deferral, got ${ack.status}`);
    const queue = { DURABLE_AGENTS_TASK_QUEUE: served.taskQueue };

    const reads = [["runs", "state", runId], ["deferrals", "show", ack.deferralId]];
    const [json, ...results] = await Promise.all([cli(["--json", "runs", "state", runId], queue), ...reads.map((args) => cli(args, queue))]);
    reads.forEach((args, i) => {
      const read = results[i]!;
      expect({ args, code: read.code }).toEqual({ args, code: 1 });
      expect(read.stderr).toMatch(/^error: \[AI1046\] .*"binary\/encrypted".*--codec-endpoint/m);
      expect(read.stdout + read.stderr).not.toContain("4242");
    });
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: "AI1046" } });
  });
});
