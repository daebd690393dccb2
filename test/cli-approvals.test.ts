/**
 * `durable-agents approvals …` (run in this process, test/cli-support.ts) against gated
 * tools in a run and in a thread: the inbox listed and read (never a token), requests
 * approved (every call, some calls, edited) and rejected, the handler running exactly as the
 * decisions allow; flag values that mean nothing are usage mistakes (exit 2, nothing sent),
 * decisions the run refuses print its code (exit 1, nothing changed), and nothing a model
 * wrote reaches the terminal raw.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool, type AgentClient, type ApprovalRequestInfo, type ThreadsClient } from "../src/index.js";
import { cliEnv, runCli } from "./cli-support.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";

let h: Harness;
let agents: AgentClient;
let threads: ThreadsClient;
let env: Record<string, string>;

/** Every transfer the handler made, by run or thread: what the decisions must bound. */
const made: Array<{ where: string; amount: number; to: string }> = [];
/** The requests' tokens, as an approver's email would carry them: never printed by the command. */
const notified: ApprovalRequestInfo[] = [];

const transfer = defineTool({
  name: "transfer",
  description: "Send money",
  input: z.object({ amount: z.number().positive(), to: z.string() }),
  needsApproval: true,
  approval: { meta: { requires: ["payouts:approve"] }, notify: (request) => void notified.push(request) },
  handler: ({ amount, to }, ctx) => {
    made.push({ where: ctx.threadId ?? ctx.runId, amount, to });
    return `sent ${amount} to ${to}`;
  },
});

/** A transfer a person may hold and answer for instead (approvals respond). */
const transferHeld = defineTool({
  name: "transferHeld",
  description: "Send money, or have it held",
  input: z.object({ amount: z.number().positive(), to: z.string() }),
  needsApproval: true,
  approval: { resultSchema: z.object({ status: z.enum(["sent", "held"]), reference: z.string() }) },
  handler: ({ amount, to }, ctx) => {
    made.push({ where: ctx.threadId ?? ctx.runId, amount, to });
    return { status: "sent", reference: "auto" };
  },
});

const treasurer = defineAgent({ id: "cli-treasurer", model: "gpt-4.1-mini", system: "You move money.", tools: [transfer], maxTurns: 6 });
const holder = defineAgent({ id: "cli-holder", model: "gpt-4.1-mini", system: "You move money.", tools: [transfer, transferHeld], maxTurns: 6 });

const madeIn = (where: string) => made.filter((m) => m.where === where).map(({ amount, to }) => ({ amount, to }));
const pay = (id: string, amount: number, to: string) => ({ id, name: "transfer", arguments: { amount, to } });

beforeAll(async () => {
  h = await startHarness();
  const served = await h.worker([treasurer, holder], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, threads: { agent: treasurer } } });
  agents = served.agents;
  threads = agents.threads;
  env = cliEnv(h, served.taskQueue);
}, 240_000);
afterAll(() => h?.close());

const cli = (args: string[], extraEnv: Record<string, string> = {}) => runCli(args, { ...env, ...extraEnv });

/** A run parked on one request for `calls`; the model's next answer is `then`. */
async function parkedRun(calls: ReturnType<typeof pay>[], then: Parameters<Harness["model"]["script"]>[1][number] = { text: "done" }) {
  const runId = uid("cli-appr-run");
  h.model.script(runId, [{ toolCalls: calls }, then]);
  const ack = await agents.run(treasurer, { prompt: runId, runId, principal: { id: "clerk" } });
  if (ack.status !== "deferred") throw new Error(`expected the run to park, got ${ack.status}`);
  return { runId, approvalId: ack.deferralId };
}

/** A thread whose turn holds on one request for `calls`. */
async function parkedThread(calls: ReturnType<typeof pay>[], then: Parameters<Harness["model"]["script"]>[1][number] = { text: "done" }) {
  const threadId = uid("cli-appr-thread");
  h.model.script(threadId, [{ toolCalls: calls }, then]);
  await threads.createThread({ threadId, prompt: threadId, principal: { id: "sam" } });
  const view = await vi.waitFor(
    async () => {
      const v = await threads.state({ threadId });
      expect(v.approvals).toHaveLength(1);
      return v;
    },
    { timeout: 20_000, interval: 50 },
  );
  return { threadId, approvalId: view.approvals[0]!.approvalId };
}

/**
 * Once visibility (which trails writes) lists every one of `ids` as the inbox reads it: asked
 * through the client, so that the command runs once, when it has something to show.
 */
async function visible(ids: string[]): Promise<void> {
  await vi.waitFor(async () => expect((await agents.approvals.list({ agentId: "cli-treasurer", limit: 1000 })).approvals.map((a) => a.approvalId)).toEqual(expect.arrayContaining(ids)), {
    timeout: 20_000,
    interval: 100,
  });
}

/** The inbox as `approvals list --json` prints it. */
async function listed(args: string[]): Promise<Array<Record<string, unknown>>> {
  const result = await cli(["--json", "approvals", "list", ...args]);
  expect(result.code).toBe(0);
  return (JSON.parse(result.stdout) as { approvals: Array<Record<string, unknown>> }).approvals;
}

describe("durable-agents approvals list and show", () => {
  it("lists a run's and a thread's requests (table, --json, filters, pages) and shows one with its calls, meta, expiry and principal, never its token", async () => {
    const [run, thread] = await Promise.all([parkedRun([pay("call-a", 120, "acme"), pay("call-b", 75, "globex")]), parkedThread([pay("call-t", 9, "initech")])]);
    await visible([run.approvalId, thread.approvalId]);
    // Commands that do not depend on each other run side by side.
    const [rows, none, resumed, firstPage, paged, table, shown, json] = await Promise.all([
      listed(["--agent", "cli-treasurer", "--requires", "payouts:approve", "--limit", "1000"]),
      // Filters that leave them out.
      cli(["--json", "approvals", "list", "--requires", "nobody:approves", "--limit", "1000"]),
      cli(["--json", "approvals", "list", "--status", "resumed", "--limit", "1000"]),
      // A page at a time.
      cli(["--json", "approvals", "list", "--agent", "cli-treasurer", "--limit", "1"]),
      cli(["approvals", "list", "--agent", "cli-treasurer", "--limit", "1"]),
      cli(["approvals", "list", "--agent", "cli-treasurer", "--limit", "1000"]),
      cli(["approvals", "show", run.approvalId]),
      cli(["--json", "approvals", "show", thread.approvalId]),
    ]);
    expect(rows.map((r) => r.approvalId)).toEqual(expect.arrayContaining([run.approvalId, thread.approvalId]));
    expect(rows.find((r) => r.approvalId === run.approvalId)).toMatchObject({
      kind: "approval",
      runId: run.runId,
      status: "deferred",
      principal: { id: "clerk" },
      calls: [{ toolCallId: "call-a", toolName: "transfer", arguments: JSON.stringify({ amount: 120, to: "acme" }) }, { toolCallId: "call-b" }],
      meta: { requires: ["payouts:approve"] },
    });
    expect(rows.find((r) => r.approvalId === thread.approvalId)).toMatchObject({ kind: "approval", runId: thread.threadId, calls: [{ toolCallId: "call-t" }] });

    // Filters that leave them out.
    expect((JSON.parse(none.stdout) as { approvals: Array<{ approvalId: string }> }).approvals.map((a) => a.approvalId)).not.toContain(run.approvalId);
    expect((JSON.parse(resumed.stdout) as { approvals: Array<{ approvalId: string }> }).approvals.map((a) => a.approvalId)).not.toContain(run.approvalId);

    // A page at a time: the cursor it prints reads the next rows.
    const first = JSON.parse(firstPage.stdout) as { approvals: Array<{ approvalId: string }>; cursor?: string };
    expect(first.approvals).toHaveLength(1);
    expect(first.cursor).toEqual(expect.any(String));
    const next = JSON.parse((await cli(["--json", "approvals", "list", "--agent", "cli-treasurer", "--limit", "1", "--cursor", first.cursor!])).stdout) as { approvals: Array<{ approvalId: string }> };
    expect(next.approvals).toHaveLength(1);
    expect(next.approvals[0]!.approvalId).not.toBe(first.approvals[0]!.approvalId);
    expect(paged.stdout).toMatch(/\nmore: --cursor \S+\n$/);

    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^APPROVAL\s+KIND\s+STATUS\s+AGENT\s+CALLS\s+REQUIRES\s+AGE\s+EXPIRES\n/);
    expect(table.stdout).toMatch(new RegExp(`${run.approvalId.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s+approval\\s+deferred\\s+cli-treasurer\\s+transfer, transfer\\s+payouts:approve`));
    expect(table.stdout).toContain(thread.approvalId);

    expect(shown.code).toBe(0);
    const request = await agents.approvals.get({ approvalId: run.approvalId });
    expect(shown.stdout).toContain(`run        ${run.runId}`);
    expect(shown.stdout).toContain(`expires    ${request.expiresAt}`);
    expect(shown.stdout).toContain('for        {"id":"clerk"}');
    expect(shown.stdout).toContain('meta       {"requires":["payouts:approve"]}');
    expect(shown.stdout).toContain(`shown      ${request.callFingerprint}`);
    expect(shown.stdout).toContain('  call-a  transfer({"amount":120,"to":"acme"})\n  call-b  transfer({"amount":75,"to":"globex"})\n');
    expect(JSON.parse(json.stdout)).toEqual(await agents.approvals.get({ approvalId: thread.approvalId }));
    for (const { approvalId } of [run, thread]) {
      const token = notified.find((n) => n.approvalId === approvalId)?.token;
      expect(token).toEqual(expect.any(String));
      for (const printed of [shown, json, table]) expect(printed.stdout + printed.stderr).not.toContain(token);
    }
    const missing = await cli(["approvals", "show", "dfr:1:nobody"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("[RC5046]");
  });
});

describe("durable-agents approvals approve and reject", () => {
  it("approves a run's request with one call edited and the other left out: the edited call runs once with the approver's input, the other never", async () => {
    const run = await parkedRun([pay("call-a", 900, "acme"), pay("call-b", 5000, "mallory")], {
      check: (req) => {
        expect(req.messages.find((m) => m.role === "tool" && m.tool_call_id === "call-a")).toMatchObject({ content: "sent 90 to acme" });
        expect(String(req.messages.find((m) => m.role === "tool" && m.tool_call_id === "call-b")?.content)).toMatch(/^Rejected by manager: "transfer" was not run\. Reason: not a supplier/);
      },
      text: "paid acme 90",
    });
    const approved = await cli(["approvals", "approve", run.approvalId, "--call", "call-a", "--edit", 'call-a={"amount":90,"to":"acme"}', "--reason", "not a supplier", "--as", "manager"]);
    expect(approved.stderr).toBe("");
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain(`resumed: ${run.approvalId}\n  edited    call-a transfer → {"amount":90,"to":"acme"}\n  rejected  call-b transfer: not a supplier\n`);
    expect(approved.stdout).toContain('outcome: {"status":"completed"');
    expect(madeIn(run.runId)).toEqual([{ amount: 90, to: "acme" }]);
    expect((await agents.deferrals.getRecord({ deferralId: run.approvalId })).resumedBy).toEqual({ id: "manager" });
    // The trail says who decided what, and what the edit changed.
    const [history, historyJson] = await Promise.all([cli(["approvals", "history", run.approvalId]), cli(["--json", "approvals", "history", run.approvalId])]);
    expect(history.code).toBe(0);
    expect(history.stdout).toMatch(/ asked {6}transfer\(\{"amount":900,"to":"acme"\}\), transfer\(\{"amount":5000,"to":"mallory"\}\) requires payouts:approve for clerk\n/);
    expect(history.stdout).toMatch(/ approved {3}call-a transfer by manager changed \/amount: 900 -> 90\n/);
    expect(history.stdout).toMatch(/ rejected {3}call-b transfer by manager reason: not a supplier\n/);
    expect(JSON.parse(historyJson.stdout)).toEqual(JSON.parse(JSON.stringify(await agents.approvals.history({ approvalId: run.approvalId }))));
    // Every request of the run, with --run; a history asked both ways, or neither, is refused.
    const [byRun, byRunJson, both, neither] = await Promise.all([
      cli(["approvals", "history", "--run", run.runId]),
      cli(["--json", "approvals", "history", "--run", run.runId]),
      cli(["approvals", "history", run.approvalId, "--run", run.runId]),
      cli(["approvals", "history"]),
    ]);
    expect(byRun.code).toBe(0);
    expect(byRun.stdout).toContain(`approval   ${run.approvalId} (resumed)\n`);
    expect(byRun.stdout).toMatch(/ approved {3}call-a transfer by manager changed \/amount: 900 -> 90\n/);
    expect(JSON.parse(byRunJson.stdout)).toEqual(JSON.parse(JSON.stringify(await agents.approvals.history({ runId: run.runId }))));
    for (const refused of [both, neither]) {
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain("AI1001");
    }

    // Decided: a second decision reads the first outcome (`duplicate`), and nothing runs again.
    const again = await cli(["--json", "approvals", "approve", run.approvalId]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: "duplicate", outcome: { status: "completed" } });
    expect(madeIn(run.runId)).toHaveLength(1);
    h.model.assertNoFailures();
  });

  it("approves every call of a thread's request; the turn goes on and each call runs once", async () => {
    const thread = await parkedThread([pay("call-t1", 9, "initech"), pay("call-t2", 3, "hooli")], { text: "both sent" });
    const approved = await cli(["--json", "approvals", "approve", thread.approvalId, "--note", "fine", "--as", "maria"]);
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({
      status: "resumed",
      outcome: { status: "accepted" },
      decisions: [
        { toolCallId: "call-t1", approved: true, note: "fine" },
        { toolCallId: "call-t2", approved: true, note: "fine" },
      ],
    });
    expect(await threads.settled({ threadId: thread.threadId })).toMatchObject({ status: "completed", approvals: [] });
    // The approved calls run side by side: each once, in either order.
    expect(madeIn(thread.threadId).sort((a, b) => a.amount - b.amount)).toEqual([
      { amount: 3, to: "hooli" },
      { amount: 9, to: "initech" },
    ]);
  });

  it("rejects every call of a run's and a thread's request: no handler runs, and the model reads the reason", async () => {
    const expectRejected = (id: string) => ({
      check: (req: { messages: Array<{ role: string; tool_call_id?: string; content?: unknown }> }) =>
        expect(String(req.messages.find((m) => m.role === "tool" && m.tool_call_id === id)?.content)).toMatch(/^Rejected by carol: "transfer" was not run\. Reason: duplicate invoice/),
      text: "not paid",
    });
    const [run, thread] = await Promise.all([parkedRun([pay("call-r", 40, "acme")], expectRejected("call-r")), parkedThread([pay("call-s", 41, "acme")], expectRejected("call-s"))]);
    const [rejected, rejectedInThread] = await Promise.all([
      cli(["approvals", "reject", run.approvalId, "--reason", "duplicate invoice", "--as", "carol"]),
      cli(["approvals", "reject", thread.approvalId, "--reason", "duplicate invoice", "--as", "carol"]),
    ]);
    expect(rejected.code).toBe(0);
    expect(rejected.stdout).toContain(`resumed: ${run.approvalId}\n  rejected  call-r transfer: duplicate invoice\n`);
    expect(await agents.handle(run.runId).settled()).toMatchObject({ status: "completed", text: "not paid" });

    expect(rejectedInThread).toMatchObject({ code: 0 });
    expect(await threads.settled({ threadId: thread.threadId })).toMatchObject({ status: "completed", approvals: [] });
    expect(madeIn(run.runId)).toEqual([]);
    expect(madeIn(thread.threadId)).toEqual([]);
    h.model.assertNoFailures();
  });
});

describe("durable-agents approvals, one call at a time", () => {
  it("approves one call with --call, leaving the other waiting; then rejects that one with reject --call: each decided call lands at once", async () => {
    const run = await parkedRun([pay("call-p", 7, "acme"), pay("call-q", 8, "globex")], {
      check: (req) => {
        expect(req.messages.find((m) => m.role === "tool" && m.tool_call_id === "call-p")).toMatchObject({ content: "sent 7 to acme" });
        expect(String(req.messages.find((m) => m.role === "tool" && m.tool_call_id === "call-q")?.content)).toMatch(/^Rejected by dana: "transfer" was not run\. Reason: later/);
      },
      text: "paid acme",
    });
    const first = await cli(["--json", "approvals", "approve", run.approvalId, "--call", "call-p", "--as", "carl"]);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ status: "resumed", outcome: { status: "deferred", deferralId: run.approvalId }, decisions: [{ toolCallId: "call-p", approved: true }] });
    // The approved call ran; the other still waits, on the same request.
    expect(madeIn(run.runId)).toEqual([{ amount: 7, to: "acme" }]);
    expect(await agents.approvals.get({ approvalId: run.approvalId })).toMatchObject({ status: "deferred" });
    const last = await cli(["approvals", "reject", run.approvalId, "--call", "call-q", "--reason", "later", "--as", "dana"]);
    expect(last.code).toBe(0);
    expect(last.stdout).toContain(`resumed: ${run.approvalId}\n  rejected  call-q transfer: later\n`);
    expect(last.stdout).toContain('outcome: {"status":"completed"');
    expect(madeIn(run.runId)).toHaveLength(1);
    h.model.assertNoFailures();
  });
});

describe("durable-agents approvals respond", () => {
  it("answers in a call's place (its tool never runs), rejects the calls it leaves out, and refuses a result off the tool's resultSchema (RC5049, exit 1) with nothing spent", async () => {
    const runId = uid("cli-respond");
    h.model.script(runId, [
      { toolCalls: [{ id: "call-h", name: "transferHeld", arguments: { amount: 70, to: "acme" } }, pay("call-x", 5, "globex")] },
      {
        check: (req) => {
          expect(req.messages.find((m) => m.role === "tool" && m.tool_call_id === "call-h")).toMatchObject({ content: JSON.stringify({ status: "held", reference: "cheque 12" }) });
          expect(String(req.messages.find((m) => m.role === "tool" && m.tool_call_id === "call-x")?.content)).toMatch(/^Rejected by mia: "transfer" was not run\. Reason: later/);
        },
        text: "held by hand",
      },
    ]);
    const ack = await agents.run(holder, { prompt: runId, runId, principal: { id: "clerk" } });
    if (ack.status !== "deferred") throw new Error(`expected the run to park, got ${ack.status}`);
    // show says what a response must be.
    const shown = await cli(["approvals", "show", ack.deferralId]);
    expect(shown.stdout).toMatch(/call-h {2}transferHeld\(.*\)\n {4}respond with \{.*"status".*\}/);
    const off = await cli(["approvals", "respond", ack.deferralId, "--result", 'call-h={"status":"lost","reference":"x"}']);
    expect(off.code).toBe(1);
    expect(off.stderr).toMatch(/^error: \[RC5049\].*respond\/status/);
    expect(await agents.approvals.get({ approvalId: ack.deferralId })).toMatchObject({ status: "deferred" });
    const responded = await cli(["approvals", "respond", ack.deferralId, "--result", '{"call-h":{"status":"held","reference":"cheque 12"}}', "--reason", "later", "--as", "mia"]);
    expect(responded.stderr).toBe("");
    expect(responded.code).toBe(0);
    expect(responded.stdout).toContain(`resumed: ${ack.deferralId}\n  responded call-h transferHeld → {"status":"held","reference":"cheque 12"}\n  rejected  call-x transfer: later\n`);
    expect(madeIn(runId)).toEqual([]);
    const usage = await Promise.all([
      cli(["approvals", "respond", "dfr:1:x"], { TEMPORAL_ADDRESS: "127.0.0.1:1" }),
      cli(["approvals", "respond", "dfr:1:x", "--result", "call-h=null"], { TEMPORAL_ADDRESS: "127.0.0.1:1" }),
      cli(["approvals", "respond", "dfr:1:x", "--result", "call-h=not json"], { TEMPORAL_ADDRESS: "127.0.0.1:1" }),
    ]);
    expect(usage.map((u) => u.code)).toEqual([2, 2, 2]);
    expect(usage[0]!.stderr).toContain("--result");
    expect(usage[1]!.stderr).toContain('--result gives the call "call-h" null, which is no result');
    expect(usage[2]!.stderr).toContain("--result is not JSON");
  });
});

describe("hostile flag values and decisions the run refuses", () => {
  it("are usage mistakes when the command cannot use them: exit 2, before anything connects", async () => {
    const cases: Array<[string[], string]> = [
      [["approvals", "approve", "dfr:1:x", "--edit", 'call-a={"amount":'], "--edit is not JSON"],
      [["approvals", "approve", "dfr:1:x", "--edit", "{oops"], "--edit is not JSON"],
      [["approvals", "approve", "dfr:1:x", "--edit", "call-a=[1,2]"], 'gives the call "call-a" an input that is not a JSON object'],
      [["approvals", "approve", "dfr:1:x", "--edit", '{"call-a":"90"}'], 'gives the call "call-a" an input that is not a JSON object'],
      [["approvals", "approve", "dfr:1:x", "--edit", '{"amount":90}x'], "--edit is not JSON"],
      [["approvals", "approve", "dfr:1:x", "--edit", "call-a"], "--edit takes <toolCallId>=<json object>"],
      [["approvals", "approve", "dfr:1:x", "--edit", '={"amount":1}'], "--edit takes <toolCallId>=<json object>"],
      [["approvals", "approve", "dfr:1:x", "--edit", 'a={"amount":1}', "--edit", '{"a":{"amount":2}}'], 'names the call "a" twice'],
      [["approvals", "approve", "dfr:1:x", "--call", "a", "--edit", 'b={"amount":1}'], 'names the call "b", which no --call approves'],
      [["approvals", "approve", "dfr:1:x", "--reason", "why"], "--reason is for the calls --call leaves out"],
      [["approvals", "list", "--status", "sideways"], "option '--status"],
      [["approvals", "list", "--limit", "1001"], "option '--limit"],
      [["approvals", "list", "--limit", "0"], "option '--limit"],
      [["approvals", "reject"], "missing required argument"],
    ];
    // Nothing listens at this address: a command that got as far as connecting would exit 3.
    const results = await Promise.all(cases.map(([args]) => cli(args, { TEMPORAL_ADDRESS: "127.0.0.1:1" })));
    cases.forEach(([args, says], i) => {
      expect({ args, code: results[i]!.code }).toEqual({ args, code: 2 });
      expect(results[i]!.stderr).toContain(says);
    });
    const noSecret = await cli(["approvals", "approve", "dfr:1:x"], { DEFERRAL_SECRET: "", TEMPORAL_ADDRESS: "127.0.0.1:1" });
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toContain("DEFERRAL_SECRET");
  });

  it("refuses decisions that do not fit the request with the run's code (RC5049, exit 1), spends nothing, and the request is decided afterwards", async () => {
    const run = await parkedRun([pay("call-a", 10, "acme"), pay("call-b", 20, "globex")], { text: "paid" });
    const refusals = [
      ["approvals", "approve", run.approvalId, "--call", "nope"], // a call the request does not list
      ["approvals", "approve", run.approvalId, "--edit", 'nope={"amount":1,"to":"x"}'], // an edit of one it does not list
      ["approvals", "approve", run.approvalId, "--edit", 'call-a={"amount":-5,"to":"acme"}'], // an input the tool's schema refuses
      ["approvals", "approve", run.approvalId, "--note", "n".repeat(5_000)], // a note over the limit
    ];
    const [json, unknown, ...refused] = await Promise.all([cli(["--json", ...refusals[0]!]), cli(["approvals", "approve", "dfr:1:no-such-run"]), ...refusals.map((args) => cli(args))]);
    refusals.forEach((args, i) => {
      expect({ args, code: refused[i]!.code }).toEqual({ args, code: 1 });
      expect(refused[i]!.stderr).toMatch(/^error: \[RC5049\]/);
    });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: "RC5049" } });
    expect(madeIn(run.runId)).toEqual([]);
    expect(await agents.approvals.get({ approvalId: run.approvalId })).toMatchObject({ status: "deferred" });

    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("[RC5046]");

    // The token was never spent: the request is still decided once, as asked.
    expect(await cli(["approvals", "approve", run.approvalId])).toMatchObject({ code: 0 });
    expect(madeIn(run.runId).sort((a, b) => a.amount - b.amount)).toEqual([
      { amount: 10, to: "acme" },
      { amount: 20, to: "globex" },
    ]);
  });
});

describe("an edit too large for the request", () => {
  it("is refused with AI1016 (exit 1) before anything is scheduled; the run keeps waiting and the request is decided afterwards", async () => {
    const run = await parkedRun([pay("call-a", 10, "acme")], { text: "paid" });
    const big = await cli(["approvals", "approve", run.approvalId, "--edit", `call-a=${JSON.stringify({ amount: 10, to: "x".repeat(600_000) })}`]);
    expect(big.code).toBe(1);
    expect(big.stderr).toMatch(/^error: \[AI1016\].*edited input/);
    expect(madeIn(run.runId)).toEqual([]);
    expect(await agents.approvals.get({ approvalId: run.approvalId })).toMatchObject({ status: "deferred" });
    expect(await cli(["approvals", "approve", run.approvalId, "--edit", 'call-a={"amount":10,"to":"acme inc"}'])).toMatchObject({ code: 0 });
    expect(madeIn(run.runId)).toEqual([{ amount: 10, to: "acme inc" }]);
  });
});

describe("what a model wrote, as the command prints it", () => {
  // A call id with ESC and BEL in it; arguments that are valid JSON yet carry a raw CR, line
  // break and tab (JSON whitespace), a C1 CSI and a bidi override (JSON leaves both raw in a string).
  const id = "call\u001b]0;owned\u0007";
  const args = '{"amount":7,\r\n\t"to":"csi\u009b31m red \u202eevil \\u001b[2J"}';
  const to = (JSON.parse(args) as { to: string }).to;
  const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
  const expectEscaped = (printed: string, shown: string[]) => {
    expect(printed).not.toMatch(RAW);
    for (const s of shown) expect(printed).toContain(s);
  };

  it("escapes control characters in a call's id and arguments in list, show, approve and history, and --json keeps the values", async () => {
    const runId = uid("cli-appr-hostile");
    h.model.script(runId, [{ toolCalls: [{ id, name: "transfer", arguments: args }] }, { text: "paid" }]);
    const ack = await agents.run(treasurer, { prompt: runId, runId });
    if (ack.status !== "deferred") throw new Error(`expected the run to park, got ${ack.status}`);
    const approvalId = ack.deferralId;
    await visible([approvalId]);
    const [rows, table, shown, json] = await Promise.all([
      listed(["--agent", "cli-treasurer", "--limit", "1000"]),
      cli(["approvals", "list", "--agent", "cli-treasurer", "--limit", "1000"]),
      cli(["approvals", "show", approvalId]),
      cli(["--json", "approvals", "show", approvalId]),
    ]);
    expect(rows.map((r) => r.approvalId)).toContain(approvalId);
    expect(table.code).toBe(0);
    expect(table.stdout).not.toMatch(RAW);

    expect(shown.code).toBe(0);
    expectEscaped(shown.stdout, ["  call\\u001b]0;owned\\u0007  transfer(", '{"amount":7,\\u000d\\u000a\\u0009"to":"csi\\u009b31m red \\u202eevil \\u001b[2J"})']);
    expect(json.stdout).not.toMatch(RAW);
    expect(JSON.parse(json.stdout).calls).toEqual([{ toolCallId: id, toolName: "transfer", arguments: args }]);

    const approved = await cli(["approvals", "approve", approvalId, "--call", id, "--edit", `${id}=${JSON.stringify({ amount: 8, to })}`]);
    expect(approved.code).toBe(0);
    expectEscaped(approved.stdout, ["  edited    call\\u001b]0;owned\\u0007 transfer", "\\u009b31m", "\\u202e"]);
    expect(madeIn(runId)).toEqual([{ amount: 8, to }]);
    const history = await cli(["approvals", "history", approvalId]);
    expect(history.code).toBe(0);
    expectEscaped(history.stdout, ["call\\u001b]0;owned\\u0007 transfer by -", "\\u009b31m", "\\u202e"]);
  });

  it("show prints why the agent asks, one escaped line per message: the prompt, the agent's text, cut ones marked", async () => {
    const prompt = `${uid("cli-appr-why")} pay acme\r\nfor \u001b[2Jinvoice <b>7</b>`;
    const said = `Paying \u202eacme\u202c now.\n${"x".repeat(2100)}`;
    h.model.script(prompt, [{ text: said, toolCalls: [pay("call-w", 3, "acme")] }, { text: "paid" }]);
    const ack = await agents.run(treasurer, { prompt, runId: uid("cli-appr-why"), principal: { id: "clerk" } });
    if (ack.status !== "deferred") throw new Error(`expected the run to park, got ${ack.status}`);
    const [shown, json] = await Promise.all([cli(["approvals", "show", ack.deferralId]), cli(["--json", "approvals", "show", ack.deferralId])]);
    expect(shown.code).toBe(0);
    const why = shown.stdout.slice(shown.stdout.indexOf("why:\n"));
    expect(why.split("\n").filter(Boolean)).toHaveLength(3);
    expectEscaped(why, [
      `  asked    ${prompt.replace("\r\n", "\\u000d\\u000a").replace("\u001b", "\\u001b")}`,
      `  agent    Paying \\u202eacme\\u202c now.\\u000a${"x".repeat(2000 - "Paying \u202eacme\u202c now.\n".length)}… (cut)`,
    ]);
    expect(JSON.parse(json.stdout).context).toEqual({ request: { role: "user", text: prompt }, messages: [{ role: "assistant", text: said.slice(0, 2000), truncated: true }], toolResults: [] });
  });
});
