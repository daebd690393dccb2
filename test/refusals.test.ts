import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentClient, DeferOutsideRunError, fromFailure } from "../src/index.js";
import { testTool } from "../src/testing/index.js";
import { bundleAgentWorkflows } from "../src/worker.js";
import { add } from "./fixtures/agents.js";
import { askApproval, askManager, linkFor, outbox, payoutAgent } from "./fixtures/approvals.js";
import type { fanOutAgents, fanOutThenDefer, singleAgent } from "./fixtures/fan-out-workflows.js";
import { auditor, treasurer } from "./fixtures/identity.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";

let h: Harness;
let agents: AgentClient;

beforeAll(async () => {
  h = await startHarness();
  const workflowBundle = await bundleAgentWorkflows({
    workflowsPath: fileURLToPath(new URL("./fixtures/fan-out-workflows.ts", import.meta.url)),
  });
  ({ agents } = await h.worker([payoutAgent, auditor, treasurer], {
    workflowBundle,
    deferral: { secret: SECRET },
    client: { deferral: { secret: SECRET } },
  }));
});
afterAll(() => h?.close());

describe("testTool (AI1006)", () => {
  it("runs a handler outside any run", async () => {
    await expect(testTool(add, { a: 2, b: 3 })).resolves.toBe("5");
  });

  it("refuses ctx.defer(), the token and a thrown DeferError with AI1006, writing nothing", async () => {
    const before = outbox.length;
    const err = await testTool(askApproval, { amount: 5 }).catch((e: unknown) => e);
    expect(DeferOutsideRunError.isInstance(err)).toBe(true);
    expect((err as Error).message).toMatch(/testTool\(askApproval\).*not an agent run/);
    await expect(testTool(askManager, { question: "?" })).rejects.toMatchObject({ code: "AI1006" });
    expect(outbox.length).toBe(before);
  });
});

describe("fan-out (RC5051)", () => {
  it("refuses defer() inside a fanOut() branch", async () => {
    const id = uid("fan-defer");
    const handle = await agents.client.workflow.start<typeof fanOutThenDefer>("fanOutThenDefer", { workflowId: id, taskQueue: agents.taskQueue, args: [] });
    const err = fromFailure(await handle.result().catch((e: unknown) => e));
    expect(err?.code).toBe("RC5051");
    expect(err?.message).toMatch(/inside a fanOut\(\) branch/);
  });

  it("refuses a dispatched agent's deferral inside a branch, and allows it outside one", async () => {
    const prompts = [uid("fan-a"), uid("fan-b")];
    for (const p of prompts) h.model.script(p, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 1 } }] }]);
    const handle = await agents.client.workflow.start<typeof fanOutAgents>("fanOutAgents", {
      workflowId: uid("fan-agents"),
      taskQueue: agents.taskQueue,
      args: [{ prompts }],
    });
    // The child run's tool was refused; the failure travels up through the child workflow.
    const err = fromFailure(await handle.result().catch((e: unknown) => e));
    expect(err?.code).toBe("RC5051");
    expect(err?.message).toMatch(/fanOut\(\) branch of workflow/);

    const single = uid("single");
    h.model.script(single, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 1 } }] }, { text: "approved child" }]);
    const parent = await agents.client.workflow.start<typeof singleAgent>("singleAgent", {
      workflowId: uid("single-parent"),
      taskQueue: agents.taskQueue,
      args: [{ prompt: single }],
    });
    await expect.poll(() => outbox.some((m) => m.runId === single), { timeout: 15_000 }).toBe(true);
    await agents.resume({ token: linkFor(single).token, payload: { approved: true } });
    await expect(parent.result()).resolves.toBe("approved child");
  });
});

describe("restored identity", () => {
  it("reads the restored principal as data, refuses it where authorization matters, and accepts it once re-verified", async () => {
    const script = (runId: string) =>
      h.model.script(runId, [
        {
          check: (req) => expect(req.messages[0]!.content).toBe("You act for ann (restored: false)."),
          toolCalls: [{ name: "askApproval", arguments: { amount: 9 } }],
        },
        { toolCalls: [{ name: "requestAudit", arguments: { question: `${runId}-audit` } }] },
        { text: "audited" },
      ]);
    const ann = { id: "ann", roles: ["audit"] };

    // Restored, not re-verified: the auditor refuses the dispatch with AI1011.
    const restoredRun = uid("restored");
    script(restoredRun);
    await agents.run(treasurer, { prompt: restoredRun, runId: restoredRun, principal: ann });
    const refused = await agents.resume({ token: linkFor(restoredRun).token, payload: { approved: true }, principal: { id: "boss" } });
    expect(refused.outcome).toMatchObject({ status: "failed", error: { code: "AI1011", fields: { agentId: "auditor", restored: true } } });
    const systems = h.model.requests.filter((r) => r.conversation === restoredRun).map((r) => r.messages[0]!.content);
    expect(systems.at(-1)).toBe("You act for ann (restored: true).");

    // The same, re-verified by the resuming service with a live credential: the audit runs.
    const verifiedRun = uid("verified");
    script(verifiedRun);
    h.model.script(`${verifiedRun}-audit`, [{ text: "books are fine" }]);
    await agents.run(treasurer, { prompt: verifiedRun, runId: verifiedRun, principal: ann });
    await expect(
      agents.resume({ token: linkFor(verifiedRun).token, payload: { approved: true }, principal: { id: "boss" }, reverify: { id: "mallory", roles: ["audit"] } }),
    ).rejects.toMatchObject({ code: "RC5056" });
    const accepted = await agents.resume({ token: linkFor(verifiedRun).token, payload: { approved: true }, principal: { id: "boss" }, reverify: ann });
    expect(accepted.outcome).toMatchObject({ status: "completed", result: { text: "audited" } });
    const thread = (await agents.listMessages({ runId: verifiedRun })).messages;
    expect(thread.find((m) => m.role === "tool" && m.content === "books are fine")).toBeDefined();
    expect(await agents.state({ runId: verifiedRun })).toMatchObject({ restored: false, principal: ann });
  });
});
