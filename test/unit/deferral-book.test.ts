/**
 * The deferral classes of a run's workflow, without a server: records and their view,
 * what is published (search attributes, events), the resume protocol in its documented
 * order, the thread swap, and parking. The integration tests cover the same through Temporal.
 */
import { ApplicationFailure } from "@temporalio/common";
import { describe, expect, it } from "vitest";
import { type DeferralRecord, type StepState } from "../../src/index.js";
import { type ResumeRequest } from "../../src/core/deferral-record.js";
import { DeferralBook, type DeferralHooks } from "../../workflows/deferrals/book.js";
import type { ParkRequest } from "../../workflows/deferrals/records.js";
import { codeOf } from "./code-of.js";
import { FakeDeferralRuntime } from "./fake-deferral-runtime.js";

const park: ParkRequest = {
  toolCallId: "call-1",
  toolName: "askApproval",
  agentId: "payouts",
  schema: { type: "object", properties: { approved: { type: "boolean" } }, required: ["approved"] },
  meta: { requires: ["payouts:approve"] },
  ttlMs: 60_000,
  definitionHash: "hash-1",
  principal: { id: "sam" },
};
const resume = (over: Partial<ResumeRequest> = {}): ResumeRequest => ({
  deferralId: "dfr:1:run-1",
  toolCallId: "call-1",
  payload: { approved: true },
  ...over,
});

/** A book with one run parked on `park`, and the promise of what the park returns. */
async function parked(hooks: DeferralHooks = {}, request: ParkRequest = park) {
  const runtime = new FakeDeferralRuntime();
  const book = new DeferralBook(runtime, hooks);
  const { record, outcome: result } = book.park(request);
  // Tests that deny the record await the rejection later.
  result.catch(() => undefined);
  await runtime.settle();
  return { runtime, book, result, record };
}

describe("deferral records", () => {
  it("derive ids from the run and their position, before the deferral exists", async () => {
    const runtime = new FakeDeferralRuntime("payout-7");
    const book = new DeferralBook(runtime);
    expect(book.nextDeferralId()).toBe("dfr:1:payout-7");
    const { record } = book.park(park);
    expect(book.records.list).toEqual([record]);
    expect(record).toMatchObject({
      id: "dfr:1:payout-7",
      runId: "payout-7",
      status: "deferred",
      deferredAt: "2026-01-01T00:00:00.000Z",
      expiresAt: "2026-01-01T00:01:00.000Z",
      principal: { id: "sam" },
    });
    expect(book.nextDeferralId()).toBe("dfr:2:payout-7");
  });

  it("show the step state while waiting, and change fingerprint with it", async () => {
    const messages: StepState["messages"] = [{ role: "user", content: "pay" }];
    const { book, record } = await parked({
      stepState: (r) => ({ agentId: "payouts", messages, deferredToolCallId: r.toolCallId, turnsUsed: 1, usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } }),
    });
    const before = book.records.view(record.id)!;
    expect(before.stepState?.messages).toEqual(messages);
    messages.push({ role: "assistant", content: "ok" });
    expect(book.records.view(record.id)!.fingerprint).not.toBe(before.fingerprint);
    record.status = "expired";
    expect(book.records.view(record.id)).not.toHaveProperty("stepState");
    expect(book.records.view("dfr:9:run-1")).toBeNull();
  });
});

describe("parking", () => {
  it("lists the deferral, fires one event and settles as deferred, without meta or token", async () => {
    const { runtime, book } = await parked();
    expect(runtime.written).toEqual([
      [
        { key: expect.objectContaining({ name: "DeferralStatus" }), value: "deferred" },
        { key: expect.objectContaining({ name: "DeferralId" }), value: "dfr:1:run-1" },
        { key: expect.objectContaining({ name: "DeferralExpiresAt" }), value: new Date("2026-01-01T00:01:00.000Z") },
      ],
    ]);
    expect(runtime.events.map((e) => e.type)).toEqual(["deferred"]);
    expect(book.phase).toBe("deferred");
    expect(await book.outcome.settled()).toEqual({ status: "deferred", deferralId: "dfr:1:run-1", schema: park.schema, expiresAt: "2026-01-01T00:01:00.000Z" });
  });

  it("expires when the timer fires: status, event, and the run moves on", async () => {
    const { runtime, book, result } = await parked();
    await runtime.expire();
    expect(await result).toMatchObject({ kind: "expired", record: { status: "expired" } });
    expect(runtime.statuses()).toEqual(["deferred", "expired"]);
    expect(runtime.events.map((e) => e.type)).toEqual(["deferred", "expired"]);
    expect(book.phase).toBe("running");
  });

  it("a refused deferral is recorded denied at once, with no expiry listed", () => {
    const runtime = new FakeDeferralRuntime();
    const record = new DeferralBook(runtime).refuse(park, "RC5054");
    expect(record).toMatchObject({ status: "denied", deniedReason: "RC5054" });
    expect(runtime.written[0]!.map((a) => a.key.name)).toEqual(["DeferralStatus", "DeferralId"]);
  });
});

describe("the resume protocol", () => {
  it("validates in order: record exists, call binding, reverified principal, plain JSON", async () => {
    const { book } = await parked();
    const validate = (request: ResumeRequest) => codeOf(() => book.resumes.validate(request));
    expect(await validate(resume({ deferralId: "dfr:2:run-1", toolCallId: "other" }))).toBe("RC5046");
    expect(await validate(resume({ toolCallId: "other", reverify: { id: "mallory" } }))).toBe("RC5055");
    expect(await validate(resume({ reverify: { id: "mallory" }, payload: { when: new Date() } as never }))).toBe("RC5056");
    expect(await validate(resume({ payload: { when: new Date() } as never }))).toBe("RC5042");
    expect(await validate(resume({ reverify: { id: "sam" } }))).toBe("no error");
  });

  it("validates the lifecycle too: denied (RC5050), then expired or past its deadline (RC5047), after the caller's checks and before the payload's", async () => {
    const { runtime, book, record } = await parked();
    const validate = (request: ResumeRequest) => codeOf(() => book.resumes.validate(request));
    // Past the deadline, before the timer fired.
    runtime.clock += 60_000;
    expect(await validate(resume({ payload: { approved: "not a boolean" } }))).toBe("RC5047");
    expect(await validate(resume({ payload: { when: new Date() } as never }))).toBe("RC5047");
    record.status = "expired";
    expect(await validate(resume())).toBe("RC5047");
    record.status = "denied";
    expect(await validate(resume())).toBe("RC5050");
    // The checks before the lifecycle still come first.
    expect(await validate(resume({ toolCallId: "other" }))).toBe("RC5055");
    expect(await validate(resume({ reverify: { id: "mallory" } }))).toBe("RC5056");
    // A duplicate of a resumed deferral passes: the handler answers it with the first outcome.
    record.status = "resumed";
    expect(await validate(resume())).toBe("no error");
    record.status = "needs-compaction";
    expect(await validate(resume())).toBe("no error");
  });

  it("claims once: the payload lands, the run continues, and the resume answers with the next outcome", async () => {
    const { runtime, book, result, record } = await parked();
    const first = book.resumes.resume(resume({ resumedBy: { id: "fiona" } }));
    const second = book.resumes.resume(resume({ payload: { approved: false } }));
    await runtime.settle();
    expect(await result).toMatchObject({ kind: "resumed", payload: { approved: true }, resumedBy: { id: "fiona" } });
    expect(record).toMatchObject({ status: "resumed", resumedAt: "2026-01-01T00:00:00.000Z" });
    expect(runtime.statuses()).toEqual(["deferred", "resumed"]);
    expect(runtime.events.map((e) => e.type)).toEqual(["deferred", "resumed"]);
    expect(runtime.events[1]).toMatchObject({ resumedBy: { id: "fiona" } });

    book.outcome.settle({ status: "completed", result: "paid" });
    await runtime.settle();
    expect(await first).toEqual({ status: "resumed", deferralId: record.id, outcome: { status: "completed", result: "paid" } });
    expect(await second).toEqual({ status: "duplicate", deferralId: record.id, outcome: { status: "completed", result: "paid" } });
  });

  it("leaves the claim's status for the run's next step when asked to", async () => {
    const { runtime, book } = await parked({ deferResumedStatus: true });
    void book.resumes.resume(resume());
    await runtime.settle();
    expect(runtime.statuses()).toEqual(["deferred"]);
    book.flushStatus();
    book.flushStatus();
    expect(runtime.statuses()).toEqual(["deferred", "resumed"]);
  });

  it("checks lifecycle, then deadline, then the continuation, then the schema; each refusal keeps the record", async () => {
    const verified: string[] = [];
    const { runtime, book, record } = await parked({ verify: async (r) => void verified.push(r.id) });
    // Schema: the token is not spent.
    expect(await codeOf(() => book.resumes.resume(resume({ payload: { approved: "yes" } })))).toBe("RC5049");
    expect(record.status).toBe("deferred");
    expect(verified).toHaveLength(1);
    // Deadline before the continuation check.
    runtime.clock += 60_000;
    expect(await codeOf(() => book.resumes.resume(resume()))).toBe("RC5047");
    expect(verified).toHaveLength(1);
    // Lifecycle first of all.
    record.status = "denied";
    expect(await codeOf(() => book.resumes.resume(resume()))).toBe("RC5050");
    expect(await codeOf(() => book.resumes.resume(resume({ deferralId: "dfr:5:run-1" })))).toBe("RC5046");
  });

  it("a failed continuation check denies the record with its code; concurrent resumes share one check", async () => {
    let checks = 0;
    let fail: (err: unknown) => void = () => undefined;
    const { runtime, book, record, result } = await parked({
      verify: () => {
        checks += 1;
        return new Promise((_, reject) => (fail = reject));
      },
    });
    const resumes = [book.resumes.resume(resume()), book.resumes.resume(resume())].map((p) => codeOf(() => p));
    await runtime.settle();
    expect(checks).toBe(1);
    fail(ApplicationFailure.create({ type: "RC5048", message: "changed" }));
    await runtime.settle();
    expect(await Promise.all(resumes)).toEqual(["RC5048", "RC5048"]);
    expect(record).toMatchObject({ status: "denied", deniedReason: "RC5048" });
    expect(runtime.statuses()).toEqual(["deferred", "denied"]);
    expect(await codeOf(() => result)).toBe("RC5048");
    expect(await codeOf(() => book.resumes.resume(resume()))).toBe("RC5050");
  });

  it("a claim whose step then cannot continue is denied, and its resume refused with that failure", async () => {
    const { runtime, book, record } = await parked();
    const resumed = codeOf(() => book.resumes.resume(resume()));
    await runtime.settle();
    book.denyClaimed(record, "RC5048", Object.assign(new Error("definition changed"), { type: "RC5048" }));
    await runtime.settle();
    expect(await resumed).toBe("RC5048");
    expect(record.deniedReason).toBe("RC5048");
    book.denyClaimed(record, "AI1007", new Error("again"));
    expect(record.deniedReason).toBe("RC5048");
  });
});

describe("replacing a waiting deferral's thread", () => {
  const setup = async () => {
    let messages: StepState["messages"] = [
      { role: "user", content: "pay" },
      { role: "assistant", content: null, tool_calls: [{ id: "call-1", type: "function", function: { name: "askApproval", arguments: "{}" } }] },
    ];
    const usage = { promptTokens: 3, completionTokens: 4, totalTokens: 7 };
    const stepState = (r: DeferralRecord): StepState => ({ agentId: "payouts", messages, deferredToolCallId: r.toolCallId, turnsUsed: 1, usage });
    const ctx = await parked({ stepState, replaceMessages: (_r, next) => void (messages = next) });
    const request = (next: Partial<StepState> = {}) => ({
      deferralId: ctx.record.id,
      expectedFingerprint: ctx.book.records.view(ctx.record.id)!.fingerprint,
      stepState: { ...stepState(ctx.record), messages: messages.map((m) => ({ ...m })), ...next },
    });
    return { ...ctx, request, messages: () => messages };
  };

  it("wins with the current fingerprint and loses, changing nothing, with a stale one", async () => {
    const { book, request, messages } = await setup();
    const stale = request();
    const first = request({ messages: stale.stepState.messages.map((m) => (m.role === "user" ? { ...m, content: "pay (summarised)" } : m)) });
    expect(book.stepStates.replace(first)).toMatchObject({ won: true });
    expect(messages()).toBe(first.stepState.messages);
    expect(book.stepStates.replace(stale)).toMatchObject({ won: false, deferral: { status: "deferred" } });
  });

  it("refuses another agent's state, another call, a changed budget and a damaged thread", async () => {
    const { book, request } = await setup();
    const validate = (next: Partial<StepState>) => codeOf(() => book.stepStates.validate(request(next)));
    expect(await validate({ agentId: "other" })).toBe("AI1007");
    expect(await validate({ deferredToolCallId: "call-2" })).toBe("AI1007");
    expect(await validate({ turnsUsed: 0 })).toBe("AI1007");
    expect(await validate({ messages: [] })).toBe("AI1008");
    expect(await validate({})).toBe("no error");
  });

  it("a plain workflow's deferral has no thread to replace", async () => {
    const { book, record } = await parked({});
    expect(await codeOf(() => book.stepStates.validate({ deferralId: record.id, expectedFingerprint: "", stepState: {} as StepState }))).toBe("AI1007");
  });

  it("lets a run parked for compaction continue once its thread is replaced", async () => {
    const { runtime, book, record, result, request } = await setup();
    void book.resumes.resume(resume());
    await runtime.settle();
    await result;
    const compacted = book.awaitCompaction(record);
    expect(book.phase).toBe("needs-compaction");
    expect(book.stepStates.replace(request())).toMatchObject({ won: true, deferral: { status: "resumed" } });
    await runtime.settle();
    await compacted;
    expect(book.phase).toBe("running");
    expect(runtime.statuses()).toEqual(["deferred", "resumed", "needs-compaction", "resumed"]);
  });
});
