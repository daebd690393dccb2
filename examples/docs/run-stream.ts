import { defineAgent } from "durable-agents";
import { clientWithWorker } from "../docs-support/env.js";
const { agents, closeAll } = await clientWithWorker();
const writer = defineAgent({ id: "writer", model: "gpt-4.1", system: "You write release notes." });
const shown: string[] = [];
const show = (text: string) => void shown.push(text);
// ---cut---
const { runId } = await agents.start(writer, { prompt: "Draft the release notes", stream: true });

let draft = "";
for await (const batch of agents.followUpdates({ runId, until: (b) => ["completed", "failed", "stopped"].includes(b.status) })) {
  for (const entry of batch.updates) {
    if (entry.type === "text-delta") draft += entry.text; // a preview, in batches
    if (entry.type === "reset") draft = ""; // the draft was abandoned (a retry, a fallback model, a cancel)
    if (entry.type === "message" && entry.message.role === "assistant") draft = entry.message.content ?? ""; // replaces the preview
    if (entry.type === "approval-request") show(`waiting for approval of ${entry.calls.map((c) => c.toolName).join(", ")}`);
    show(draft);
  }
}
// ---end---
console.log(`shown ${shown.length} times; final: ${draft}`);
await closeAll();
