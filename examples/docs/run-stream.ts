import type { AgentClient, AgentDefinition } from "durable-agents";
declare const agents: AgentClient;
declare const writer: AgentDefinition;
declare function show(text: string): void;
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
