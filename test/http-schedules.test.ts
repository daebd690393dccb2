/**
 * `/schedules` over the front door: the caller is the authenticated principal (a schedule's
 * runs act for whoever created it), the client's hook decides each `schedule.*` operation,
 * and bad bodies, unknown ids and cross-site posts are typed refusals that change nothing.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AgentClient, type AuthorizeHook } from "../src/index.js";
import { payoutAgent } from "./fixtures/approvals.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";
import { startHttp, type HttpServer } from "./http-support.js";

let h: Harness;
let agents: AgentClient;
let http: HttpServer;
/** Who created which schedule: only they may touch it; runs stay open to everyone signed in. */
const owners = new Map<string, string>();

const authorize: AuthorizeHook = (request) => {
  const who = request.principal?.id;
  if (who === undefined) return false;
  if (request.scheduleId === undefined) return true;
  if (request.operation === "schedule.create") {
    if (owners.has(request.scheduleId)) return owners.get(request.scheduleId) === who;
    owners.set(request.scheduleId, who);
    return true;
  }
  return owners.get(request.scheduleId) === who;
};

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([payoutAgent], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, authorize } }));
  http = await startHttp({ agents, basePath: "/api" });
});
afterAll(async () => {
  await http?.close();
  await h?.close();
});

const alice = { id: "alice" };

describe("schedules over HTTP", () => {
  it("creates a schedule as the caller, whose triggered run acts for them; describe, list, pause, unpause, update, delete", async () => {
    const scheduleId = uid("http-sched");
    const prompt = uid("reconcile payouts");
    h.model.respond(prompt, () => ({ text: "reconciled" }));
    const created = await http.call("POST", "/schedules", { user: "alice", body: { agent: "payouts", scheduleId, prompt, spec: { cron: "0 6 * * *", timezone: "UTC" }, paused: true } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ scheduleId });
    expect(created.headers.get("location")).toBe(`/api/schedules/${scheduleId}`);

    expect((await http.call("POST", `/schedules/${scheduleId}/trigger`, { user: "alice", body: {} })).status).toBe(202);
    const described = await vi.waitFor(
      async () => {
        const d = await http.call("GET", `/schedules/${scheduleId}`, { user: "alice" });
        expect(d.body.recentRuns).toHaveLength(1);
        return d.body;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(described).toMatchObject({ scheduleId, agentId: "payouts", prompt, runsAs: alice, paused: true });
    const runId = described.recentRuns[0].runId as string;
    expect(await agents.result({ runId, principal: alice })).toMatchObject({ status: "completed", text: "reconciled" });
    expect((await http.call("GET", `/runs/${encodeURIComponent(runId)}`, { user: "alice" })).body).toMatchObject({ status: "completed", principal: alice });

    expect((await http.call("POST", `/schedules/${scheduleId}/unpause`, { user: "alice", body: { note: "go" } })).body).toEqual({ scheduleId, paused: false });
    expect((await http.call("POST", `/schedules/${scheduleId}/pause`, { user: "alice", body: {} })).body).toEqual({ scheduleId, paused: true });
    const patched = await http.call("PATCH", `/schedules/${scheduleId}`, { user: "alice", body: { prompt: "later", spec: { every: "2h" } } });
    expect(patched.status).toBe(200);
    expect((await http.call("GET", `/schedules/${scheduleId}`, { user: "alice" })).body).toMatchObject({ prompt: "later", paused: true, spec: { intervals: [{ every: 7_200_000 }] } });
    await vi.waitFor(async () => expect((await http.call("GET", "/schedules?agent=payouts", { user: "alice" })).body.schedules.map((s: { scheduleId: string }) => s.scheduleId)).toContain(scheduleId), {
      timeout: 20_000,
      interval: 100,
    });

    expect((await http.call("DELETE", `/schedules/${scheduleId}`, { user: "alice" })).body).toEqual({ scheduleId, deleted: true });
    expect((await http.call("GET", `/schedules/${scheduleId}`, { user: "alice" })).body.error.code).toBe("AI1090");
  });

  it("refuses another caller and an anonymous one (AI1093), per operation, and the schedule is unchanged", async () => {
    const scheduleId = uid("http-owned");
    expect((await http.call("POST", "/schedules", { user: "alice", body: { agent: "payouts", scheduleId, prompt: "x", spec: { every: "1h" }, paused: true } })).status).toBe(201);
    try {
      const attempts: Array<[string, string, unknown?]> = [
        ["GET", `/schedules/${scheduleId}`],
        ["POST", `/schedules/${scheduleId}/pause`, {}],
        ["POST", `/schedules/${scheduleId}/unpause`, {}],
        ["POST", `/schedules/${scheduleId}/trigger`, {}],
        ["PATCH", `/schedules/${scheduleId}`, { prompt: "mine" }],
        ["DELETE", `/schedules/${scheduleId}`],
        ["POST", "/schedules", { agent: "payouts", scheduleId, prompt: "mine", spec: { every: "1h" } }],
      ];
      for (const user of ["bob", undefined]) {
        for (const [method, path, body] of attempts) {
          const res = await http.call(method, path, { ...(user ? { user } : {}), ...(body !== undefined ? { body } : {}) });
          expect(res.status, `${method} ${path} as ${user}`).toBe(403);
          expect(res.body.error.code).toBe("AI1093");
        }
      }
      expect((await http.call("GET", "/schedules", { user: "bob" })).body.schedules.map((s: { scheduleId: string }) => s.scheduleId)).not.toContain(scheduleId);
      expect((await http.call("GET", `/schedules/${scheduleId}`, { user: "alice" })).body).toMatchObject({ prompt: "x", paused: true, runsStarted: 0, runsAs: alice });
    } finally {
      await http.call("DELETE", `/schedules/${scheduleId}`, { user: "alice" });
    }
  });

  it("answers malformed bodies with AI1040, a spec Temporal refuses with AI1092, an unknown id with AI1090, a cross-site post with AI1043: nothing is created", async () => {
    const scheduleId = uid("http-bad");
    const bodies: Array<[unknown, string]> = [
      [{ agent: "payouts", scheduleId, prompt: "x", spec: { every: "1h", cron: "0 * * * *" } }, "AI1040"],
      [{ agent: "payouts", scheduleId, prompt: "x", spec: { calendars: [{ hour: 3 }] } }, "AI1040"],
      [{ agent: "payouts", scheduleId, prompt: "x", spec: { every: "1h" }, overlap: "SOMETIMES" }, "AI1040"],
      [{ agent: "payouts", scheduleId, prompt: 42, spec: { every: "1h" } }, "AI1040"],
      [{ agent: "payouts", scheduleId: "a\u0000b", prompt: "x", spec: { every: "1h" } }, "AI1040"],
      [{ agent: "payouts", scheduleId, prompt: "x", spec: { cron: "not a cron at all" } }, "AI1092"],
      [{ agent: "payouts", scheduleId, prompt: "x", spec: { every: "100ms" } }, "AI1092"],
    ];
    for (const [body, code] of bodies) {
      const res = await http.call("POST", "/schedules", { user: "alice", body });
      expect(res.body.error?.code, JSON.stringify(body)).toBe(code);
    }
    const crossSite = await http.call("POST", "/schedules", { user: "alice", raw: JSON.stringify({ agent: "payouts", scheduleId, prompt: "x", spec: { every: "1h" } }), headers: { "content-type": "text/plain", origin: "https://evil.example" } });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.error.code).toBe("AI1043");
    owners.set(scheduleId, "alice");
    const missing = await http.call("GET", `/schedules/${scheduleId}`, { user: "alice" });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("AI1090");
    expect((await http.call("POST", `/schedules/${scheduleId}/trigger`, { user: "alice", body: {} })).body.error.code).toBe("AI1090");
  });
});
