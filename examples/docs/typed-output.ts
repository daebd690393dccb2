import type { AgentClient } from "durable-agents";
declare const agents: AgentClient;
// ---cut---
import { z } from "zod";
import { defineAgent } from "durable-agents";

const triage = defineAgent({
  id: "triage",
  model: "gpt-4.1-mini",
  system: "Classify the support ticket.",
  output: z.object({ category: z.enum(["billing", "bug", "other"]), urgent: z.boolean() }),
});

const result = await agents.run(triage, { prompt: "I was charged twice!" });
if (result.status === "completed") {
  // Typed from the schema: { category: "billing" | "bug" | "other"; urgent: boolean } | undefined
  console.log(result.output?.category);
}
