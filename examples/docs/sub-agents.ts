import { clientWithWorker } from "../docs-support/env.js";
const { agents, closeAll } = await clientWithWorker();
// ---cut---
import { z } from "zod";
import { defineAgent, defineTool } from "durable-agents";

const search = defineTool({ name: "search", description: "Searches the web", input: z.object({ q: z.string() }), handler: async ({ q }) => `results for ${q}` });
const researcher = defineAgent({
  id: "researcher",
  description: "Finds sources on a topic and summarises them",
  model: "gpt-4.1-mini",
  system: "You research.",
  tools: [search],
  maxTurns: 8,
});
const writer = defineAgent({
  id: "writer",
  model: "gpt-4.1",
  system: "You write articles. Ask the researcher for facts first.",
  agents: [researcher], // the model may call the tool "researcher" with { prompt }
  maxTurns: 20, // the researcher's turns count in these
});

const result = await agents.run(writer, { prompt: "An article on durable execution" });
// ---end---
console.log(result.status === "completed" ? `${result.text} (${result.turnsUsed} turns)` : result);
await closeAll();
