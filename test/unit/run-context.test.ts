import { describe, expect, it } from "vitest";
import { initialRunState, RunCancellation, SentTranscript } from "../../workflows/runs/context.js";

describe("an agent run's context", () => {
  it("starts from the prompt, with no turns used and the principal it was started for", () => {
    expect(initialRunState({ version: 1, agentId: "a", prompt: "hi", principal: { id: "sam" } })).toMatchObject({
      status: "running",
      messages: [{ role: "user", content: "hi" }],
      turnsUsed: 0,
      restored: false,
      principal: { id: "sam" },
    });
  });

  it("refuses a transcript prefix asked for at an epoch a rewrite has replaced", () => {
    const sync = new SentTranscript();
    const messages = [{ role: "user" as const, content: "a" }, { role: "assistant" as const, content: "b" }];
    expect(sync.prefix(messages, 0, 1)).toEqual([messages[0]]);
    sync.replaced(messages);
    expect(sync).toMatchObject({ epoch: 1, sentLength: 2 });
    expect(() => sync.prefix(messages, 0, 1)).toThrow(/stale/);
  });

  it("keeps the first cancellation reason and cancels its scope each time", () => {
    let cancels = 0;
    const cancellation = new RunCancellation({ cancel: () => void cancels++, consideredCancelled: false });
    expect(cancellation.requested()).toBe(false);
    cancellation.cancel("timed out after 5ms");
    cancellation.cancel("cancelled");
    expect(cancellation).toMatchObject({ reason: "timed out after 5ms" });
    expect(cancellation.requested()).toBe(true);
    expect(cancels).toBe(2);
  });
});
