import { setTimeout as sleep } from "node:timers/promises";
import { defineAgent, defineTool } from "durable-agents";
import { z } from "zod";
import { clientWithWorker } from "../docs-support/env.js";
const { agents, closeAll } = await clientWithWorker();
const shown: string[] = [];
const show = (text: string) => void shown.push(text);
const writeSection = (n: number) => sleep(300, `section ${n}`);
// ---cut---
const buildReport = defineTool({
  name: "buildReport",
  description: "Builds the quarterly report",
  input: z.object({ quarter: z.string() }),
  async handler({ quarter }, ctx) {
    const sections = 3;
    for (let n = 1; n <= sections; n++) {
      ctx.progress({ step: `section ${n} of ${sections}`, percent: Math.round(((n - 1) / sections) * 100) }); // a preview for readers
      await writeSection(n);
    }
    return `report for ${quarter}: ${sections} sections`; // the record
  },
});
const reporter = defineAgent({ id: "reporter", model: "gpt-4.1", system: "You build reports.", tools: [buildReport] });

const { runId } = await agents.start(reporter, { prompt: "Build the Q3 report" });
for await (const batch of agents.followUpdates({ runId, until: (b) => ["completed", "failed", "stopped"].includes(b.status) })) {
  for (const entry of batch.updates) {
    if (entry.type === "tool-progress") show(`${entry.toolName}: ${(entry.data as { step: string }).step}`);
    if (entry.type === "message" && entry.message.role === "assistant" && entry.message.content) show(entry.message.content);
  }
}
// ---end---
console.log(shown.join("\n"));
await closeAll();
