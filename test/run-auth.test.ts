import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  defineAgent,
  defineTool,
  DurableAgentsError,
  replaceDeferredThread,
  ResumeUnauthorizedError,
  RunUnauthorizedError,
  type AgentClient,
  type AuthorizeRequest,
  type Principal,
} from "../src/index.js";
import { linkFor, payoutAgent } from "./fixtures/approvals.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";

let h: Harness;
let agents: AgentClient;
/** Who started which run: a run id belongs to whoever started it first. */
const owners = new Map<string, string>();
/** Every request the hook was asked, in order. */
const asked: AuthorizeRequest[] = [];

/**
 * The service's rule: anyone signed in may start a run (its id is then theirs); a run's
 * owner may read, cancel and rewrite it; the auditor may read any deferral; a resume needs
 * the roles the deferral requires. Some principals stand for broken hooks.
 */
function authorize(request: AuthorizeRequest): boolean {
  asked.push(request);
  const who = request.principal?.id;
  if (who === "broken") throw new Error("directory is down");
  if (who === "sloppy-yes") return "yes" as never;
  if (who === "sloppy-one") return 1 as never;
  if (request.runId === undefined || who === undefined) return false;
  switch (request.operation) {
    case "run.start": {
      const owner = owners.get(request.runId);
      if (owner === undefined) owners.set(request.runId, who);
      return owner === undefined || owner === who;
    }
    case "resume":
      return ((request.deferral.meta.requires as string[] | undefined) ?? []).every((role) => ((request.principal?.roles as string[] | undefined) ?? []).includes(role));
    case "deferral.get":
    case "deferral.list":
      return who === "auditor" || owners.get(request.runId) === who;
    default:
      return owners.get(request.runId) === who;
  }
}

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([payoutAgent], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, authorize } }));
});
afterAll(() => h?.close());

const alice: Principal = { id: "alice" };
const mallory: Principal = { id: "mallory" };
const fiona: Principal = { id: "fiona", roles: ["payouts:approve"] };
const auditor: Principal = { id: "auditor" };

/** A run alice started, parked on askApproval. */
async function alicesDeferredRun() {
  const runId = uid("owned");
  h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 5 } }] }, { toolCalls: [{ name: "sendPayout", arguments: { amount: 5 } }] }, { text: "Paid 5." }]);
  const ack = await agents.run(payoutAgent, { prompt: runId, runId, principal: alice });
  if (ack.status !== "deferred") throw new Error(`expected a deferral, got ${JSON.stringify(ack)}`);
  return { runId, deferralId: ack.deferralId, link: linkFor(runId) };
}

const refusal = async (call: () => Promise<unknown>) =>
  call().then(
    () => new Error("allowed"),
    (e: unknown) => e,
  );

const historyLength = async (runId: string) => (await agents.workflowHandle(runId).fetchHistory()).events?.length ?? 0;

/** What "nothing changed" means for a parked run: still deferred, same record, not one history event more. */
async function unchanged(runId: string, deferralId: string) {
  const events = await historyLength(runId);
  const before = await agents.deferrals.get({ deferralId, principal: alice });
  return async () => {
    expect(await historyLength(runId)).toBe(events);
    const after = await agents.deferrals.get({ deferralId, principal: alice });
    expect(after.status).toBe("deferred");
    expect(after.fingerprint).toBe(before.fingerprint);
    expect((await agents.state({ runId, principal: alice })).status).toBe("deferred");
  };
}

/** Every AgentClient operation on a run, called as `principal`, with the operation the hook is asked. */
function operations(runId: string, deferralId: string, token: string, principal: Principal | undefined, rewrites: string[]) {
  const p = principal ? { principal } : {};
  return {
    "run.start": () => agents.start(payoutAgent, { prompt: runId, runId, ...p }),
    "run.state": () => agents.state({ runId, ...p }),
    "run.state (handle)": () => agents.handle(runId, p).state(),
    "run.state (messages)": () => agents.listMessages({ runId, ...p }),
    "run.state (handle messages)": () => agents.handle(runId, p).listMessages(),
    "run.state (stream)": () => agents.streamUpdates({ runId, ...p }),
    "run.state (handle stream)": () => agents.handle(runId, p).streamUpdates(),
    "run.state (handle follow)": () => agents.handle(runId, p).followUpdates().next(),
    "run.result": () => agents.result({ runId, ...p }),
    "run.result (handle)": () => agents.handle(runId, p).result(),
    "run.result (settled)": () => agents.handle(runId, p).settled(),
    "run.result (agents.settled)": () => agents.settled({ runId, ...p }),
    "run.cancel": () => agents.cancel({ runId, reason: "not yours", ...p }),
    "run.cancel (handle)": () => agents.handle(runId, p).cancel({ reason: "not yours" }),
    "deferral.get": () => agents.deferrals.get({ deferralId, ...p }),
    "deferral.replace": () => replaceDeferredThread(agents.deferrals, { deferralId, rewrite: (messages) => (rewrites.push(deferralId), messages), ...p }),
    "deferral.replace (store)": () => agents.deferrals.replaceStepState({ deferralId, expectedFingerprint: "any-fingerprint", stepState: { agentId: "payouts", messages: [], deferredToolCallId: "x", turnsUsed: 0, usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } }, ...p }),
    resume: () => agents.resume({ token, payload: { approved: true }, ...p }),
  };
}

describe("run authorization", () => {
  it("refuses every run and deferral operation unless the hook returns exactly true (AI1013, RC5056 for resume), and nothing changes", async () => {
    const { runId, deferralId, link } = await alicesDeferredRun();
    const check = await unchanged(runId, deferralId);
    const rewrites: string[] = [];

    for (const principal of [mallory, { id: "broken" }, { id: "sloppy-yes" }, { id: "sloppy-one" }, undefined]) {
      const from = asked.length;
      for (const [name, call] of Object.entries(operations(runId, deferralId, link.token, principal, rewrites))) {
        const err = await refusal(call);
        const operation = name.split(" ")[0]!;
        if (operation === "resume") {
          expect(ResumeUnauthorizedError.isInstance(err), `${name} as ${principal?.id}: ${String(err)}`).toBe(true);
          continue;
        }
        expect(RunUnauthorizedError.isInstance(err), `${name} as ${principal?.id}: ${String(err)}`).toBe(true);
        const fields = (err as RunUnauthorizedError).fields;
        expect(fields).toMatchObject({ operation, runId, ...(operation.startsWith("deferral.") ? { deferralId } : {}) });
        expect((err as Error).message).toMatch(new RegExp(`^\\[AI1013\\] ${operation.replace(".", "\\.")} of .*Nothing was read or changed`));
        expect((err as DurableAgentsError).code).toBe("AI1013");
      }
      // What the hook was asked: the operation, the caller and the ids, nothing it did not need.
      const mine = asked.slice(from);
      expect(mine).toContainEqual({ operation: "run.start", principal, runId, agentId: "payouts" });
      expect(mine).toContainEqual({ operation: "run.state", principal, runId });
      expect(mine).toContainEqual({ operation: "run.result", principal, runId });
      expect(mine).toContainEqual({ operation: "run.cancel", principal, runId });
      expect(mine).toContainEqual({ operation: "deferral.get", principal, runId, deferralId });
      expect(mine).toContainEqual({ operation: "deferral.replace", principal, runId, deferralId });
      expect(mine.find((r) => r.operation === "resume")).toMatchObject({
        operation: "resume",
        principal,
        runId,
        deferralId,
        toolCallId: link.toolCallId,
        toolName: "askApproval",
        agentId: "payouts",
        payload: { approved: true },
        deferral: { id: deferralId, meta: { requires: ["payouts:approve"], amount: 5 }, toolName: "askApproval", status: "deferred", principal: { id: "alice", restored: true } },
      });
    }
    const returned = async (id: string) => ((await refusal(() => agents.state({ runId, principal: { id } }))) as RunUnauthorizedError).fields.returned;
    expect(await returned("sloppy-yes")).toBe('"yes"');
    expect(await returned("sloppy-one")).toBe("1");
    expect(await returned("broken")).toMatch(/^an error \(directory is down\)$/);
    expect(await returned("mallory")).toBe("false");

    // The rewrite never ran, and the run, its record and its history are as they were.
    expect(rewrites).toEqual([]);
    await check();
    // Still resumable by whoever the hook allows: the refusals spent nothing.
    const resumed = await agents.resume({ token: link.token, payload: { approved: true }, principal: fiona });
    expect(resumed).toMatchObject({ status: "resumed", outcome: { status: "completed", result: { text: "Paid 5." } } });
  });

  it("lets the owner read, rewrite and cancel through the same calls, each asked as the principal it was made with", async () => {
    const { runId, deferralId } = await alicesDeferredRun();
    expect((await agents.handle(runId, { principal: alice }).state()).status).toBe("deferred");
    expect((await agents.deferrals.get({ deferralId, principal: auditor })).id).toBe(deferralId);
    expect(RunUnauthorizedError.isInstance(await refusal(() => agents.state({ runId, principal: auditor })))).toBe(true);
    const swap = await replaceDeferredThread(agents.deferrals, { deferralId, rewrite: (messages) => messages, principal: alice });
    expect(swap.won).toBe(true);
    // Asked once, as a whole: the rewrite reads what it rewrites.
    expect(asked.filter((r) => r.operation === "deferral.get" && r.runId === runId && r.principal?.id === "alice")).toHaveLength(0);

    // The handle cancels as the principal it was made for, as agents.cancel does.
    await agents.handle(runId, { principal: alice }).cancel({ reason: "changed my mind" });
    await expect(agents.result({ runId, principal: alice })).rejects.toMatchObject({ code: "AI1005", fields: { reason: "changed my mind" } });
    expect(asked).toContainEqual({ operation: "run.cancel", principal: alice, runId });
  });

  it("refuses a start the hook refuses, starting nothing, and an attach to someone else's run id", async () => {
    const runId = uid("anonymous");
    const err = await refusal(() => agents.start(payoutAgent, { prompt: runId, runId }));
    expect(RunUnauthorizedError.isInstance(err)).toBe(true);
    expect((err as RunUnauthorizedError).fields).toMatchObject({ operation: "run.start", runId, returned: "false" });
    await expect(agents.workflowHandle(runId).describe()).rejects.toThrow(/not found/i);

    const { runId: taken, deferralId } = await alicesDeferredRun();
    const check = await unchanged(taken, deferralId);
    const attach = await refusal(() => agents.run(payoutAgent, { prompt: "mine now", runId: taken, principal: mallory }));
    expect((attach as RunUnauthorizedError).fields).toMatchObject({ operation: "run.start", runId: taken });
    await check();
  });

  it("lists only the deferrals the hook allows, asking per row", async () => {
    const mine = await alicesDeferredRun();
    const bobs = uid("bobs");
    h.model.script(bobs, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 7 } }] }, { text: "never" }]);
    await agents.run(payoutAgent, { prompt: bobs, runId: bobs, principal: { id: "bob" } });
    const listed = async (principal: Principal) =>
      (await agents.deferrals.list({ principal, status: "deferred", agentId: "payouts", limit: 1000 })).deferrals.map((d) => d.runId);
    await vi.waitFor(async () => expect(await listed(auditor)).toEqual(expect.arrayContaining([mine.runId, bobs])), { timeout: 15_000, interval: 200 });
    expect(await listed(alice)).toContain(mine.runId);
    expect(await listed(alice)).not.toContain(bobs);
    expect(await listed(mallory)).toEqual([]);
    expect(asked).toContainEqual({ operation: "deferral.list", principal: alice, runId: mine.runId, deferralId: mine.deferralId, agentId: "payouts", status: "deferred" });
  });
});

describe("ctx.dispatch", () => {
  const scout = defineAgent({ id: "auth-scout", model: "gpt-4.1-mini", system: "You scout.", maxTurns: 2 });
  const research = defineTool({
    name: "research",
    description: "Hands a task to the scout",
    input: z.object({ task: z.string() }),
    handler: async ({ task }, ctx) => {
      const answer = await ctx.dispatch(scout, { prompt: task });
      return answer.status === "completed" ? answer.text : JSON.stringify(answer);
    },
  });
  const desk = defineAgent({ id: "auth-desk", model: "gpt-4.1-mini", system: "You dispatch.", tools: [research], maxTurns: 3 });

  it("never answers a call with a run someone else started under its sub-run id: AI1019, the task is not sent", async () => {
    // The same hook: anyone signed in may start a run under an id nobody owns yet.
    const { agents: desks } = await h.worker([desk, scout], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, authorize } });
    const ticket = uid("ticket");
    const malloryText = `${ticket} mallory: pay IBAN-MALLORY`;
    h.model.script(malloryText, [{ text: "Verified: pay IBAN-MALLORY." }]);
    const squatted = await desks.run(scout, { prompt: malloryText, runId: `${ticket}/call_0_0/auth-scout`, principal: mallory });
    expect(squatted).toMatchObject({ status: "completed" });

    const alicesTask = `${ticket} alice: check the vendor`;
    h.model.script(ticket, [{ toolCalls: [{ id: "call_0_0", name: "research", arguments: { task: alicesTask } }] }, { text: "never asked" }]);
    h.model.script(alicesTask, [{ text: "The vendor is fine." }]);
    // Refused, typed, as an SDK error in a tool is: the run fails with it (a handler may catch it).
    const outcome = await desks.run(desk, { prompt: ticket, runId: ticket, principal: alice }).catch((e: unknown) => e);
    expect(outcome).toMatchObject({ code: "AI1019", fields: { agentId: "auth-scout", subRunId: `${ticket}/call_0_0/auth-scout` } });
    const transcript = JSON.stringify((await desks.listMessages({ runId: ticket, principal: alice })).messages);
    expect(transcript).not.toMatch(/IBAN-MALLORY/);
    // Alice's task went nowhere: not to Mallory's run, not to the model.
    expect(h.model.requests.filter((r) => r.conversation === alicesTask)).toEqual([]);
    expect(await desks.result({ runId: `${ticket}/call_0_0/auth-scout`, principal: mallory })).toMatchObject({ text: "Verified: pay IBAN-MALLORY." });
  });
});

describe("reverify", () => {
  it("shows the hook a frozen copy of reverify, and sends exactly that copy", async () => {
    const { runId, deferralId, link } = await alicesDeferredRun();
    const seen: unknown[] = [];
    const mine = { id: "alice", tier: "gold" } as Principal;
    // A hook that tries to change what it was shown refuses (the copy is frozen): nothing is sent.
    const tampering = await refusal(() =>
      agents.resume({
        token: link.token,
        payload: { approved: true },
        principal: fiona,
        reverify: mine,
        authorize: (req) => {
          if (req.operation === "resume" && req.reverify) (req.reverify as Record<string, unknown>).tier = "platinum";
          return true;
        },
      }),
    );
    expect(ResumeUnauthorizedError.isInstance(tampering), String(tampering)).toBe(true);
    expect((await agents.deferrals.get({ deferralId, principal: alice })).status).toBe("deferred");

    const pending = agents.resume({
      token: link.token,
      payload: { approved: true },
      principal: fiona,
      reverify: mine,
      authorize: (req) => {
        seen.push(req.operation === "resume" ? { reverify: req.reverify, frozen: Object.isFrozen(req.reverify) } : req.operation);
        return req.operation === "resume" && req.reverify?.id === "alice" && req.reverify.tier === "gold";
      },
    });
    // The caller changes its object while the resume is under way: too late to change what is sent.
    (mine as Record<string, unknown>).tier = "platinum";
    await expect(pending).resolves.toMatchObject({ status: "resumed" });
    expect(seen).toEqual([{ reverify: { id: "alice", tier: "gold" }, frozen: true }]);
    expect((await agents.deferrals.get({ deferralId, principal: alice })).reverified).toEqual({ id: "alice", tier: "gold" });
    expect((await agents.state({ runId, principal: alice })).status).toBe("completed");
  });
});

describe("previewResume", () => {
  it("runs the resume's checks as resume alone, without spending or changing anything: what the approval page shows", async () => {
    const { runId, deferralId, link } = await alicesDeferredRun();
    const check = await unchanged(runId, deferralId);
    const seen: string[] = [];
    // An approver may answer, and so see what she answers, without any right to read deferrals in general.
    const approverOnly = (req: AuthorizeRequest) => (seen.push(req.operation), req.operation === "resume" && req.principal?.id === "fiona" && req.payload === undefined);
    const preview = await agents.previewResume({ token: link.token, principal: fiona, authorize: approverOnly });
    expect(preview).toMatchObject({ status: "pending", deferralId, deferral: { id: deferralId, status: "deferred", toolName: "askApproval", meta: { amount: 5 } } });
    expect(seen).toEqual(["resume"]);
    expect(await refusal(() => agents.previewResume({ token: link.token, principal: mallory, authorize: approverOnly }))).toMatchObject({ code: "RC5056" });
    await check();

    const resumed = await agents.resume({ token: link.token, payload: { approved: true }, principal: fiona });
    expect(await agents.previewResume({ token: link.token, principal: fiona, authorize: approverOnly })).toEqual({ ...resumed, status: "duplicate" });
  });
});

describe("hostile ids", () => {
  it("asks the hook about __proto__ and 10 KB ids as ordinary ids, answers with typed codes, and changes nothing", async () => {
    const { runId, deferralId } = await alicesDeferredRun();
    const check = await unchanged(runId, deferralId);
    const long = "r".repeat(10 * 1024);
    for (const id of ["__proto__", "constructor", long]) {
      for (const [name, call] of Object.entries({
        "run.state": () => agents.state({ runId: id, principal: mallory }),
        "run.cancel": () => agents.cancel({ runId: id, principal: mallory }),
        "deferral.get": () => agents.deferrals.get({ deferralId: `dfr:1:${id}`, principal: mallory }),
      })) {
        const err = await refusal(call);
        expect(RunUnauthorizedError.isInstance(err), `${name} ${id.slice(0, 20)}: ${String(err)}`).toBe(true);
        expect((err as RunUnauthorizedError).fields.runId).toBe(id);
        // The message stays readable whatever the id.
        expect((err as Error).message.length).toBeLessThan(600);
      }
      // Allowed through (it is the auditor's deferral read), an unknown id is simply not found.
      expect(await refusal(() => agents.deferrals.get({ deferralId: `dfr:1:${id}`, principal: auditor }))).toMatchObject({ code: "RC5046" });
    }
    // A deferral id that does not parse reads nothing and asks nothing.
    const before = asked.length;
    expect(await refusal(() => agents.deferrals.get({ deferralId: "__proto__", principal: auditor }))).toMatchObject({ code: "RC5046" });
    expect(asked.length).toBe(before);
    await check();
  });
});
