import { clientWithWorker } from "../docs-support/env.js";
const { agents, closeAll } = await clientWithWorker();
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
// ---end---
console.log("output:", JSON.stringify(result.status === "completed" ? result.output : result));
await closeAll();
