import { createHash } from "node:crypto";
import { z } from "zod";
import type { AgentDefinition } from "../src/core/define-agent.js";
import type { ToolDefinition } from "../src/core/define-tool.js";
import { AgentNotRegisteredError } from "../src/core/errors/agent-not-registered.js";
import { InvalidDefinitionError } from "../src/core/errors/invalid-definition.js";
import type { ToolSpec } from "../src/core/model.js";

/** An agent as the worker serves it: its definition plus what is derived once at start-up. */
export interface PreparedDefinition {
  agent: AgentDefinition;
  toolSpecs: ToolSpec[];
  tools: Map<string, ToolDefinition>;
  /** Covers what a deferred step depends on: system, model, tool names, descriptions, schemas. */
  definitionHash: string;
}

/** JSON Schema of a tool's input, without the `$schema` key model APIs reject. */
export function toolParameters(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  return rest;
}

export class AgentRegistry {
  readonly #agents = new Map<string, PreparedDefinition>();

  constructor(agents: AgentDefinition[]) {
    for (const agent of agents) {
      if (agent?.kind !== "agent") {
        throw new InvalidDefinitionError({ subject: "worker", problem: "every agent must come from defineAgent()" });
      }
      if (this.#agents.has(agent.id)) {
        throw new InvalidDefinitionError({ subject: "worker", problem: `two agents have the id "${agent.id}"` });
      }
      this.#agents.set(agent.id, prepare(agent));
    }
  }

  get(agentId: string): PreparedDefinition {
    const found = this.#agents.get(agentId);
    if (!found) throw new AgentNotRegisteredError({ agentId, registered: [...this.#agents.keys()] });
    return found;
  }
}

function prepare(agent: AgentDefinition): PreparedDefinition {
  const toolSpecs = agent.tools.map((t) => ({ name: t.name, description: t.description, parameters: toolParameters(t.input) }));
  const definitionHash = createHash("sha256")
    .update(JSON.stringify({ system: String(agent.system), model: agent.model, tools: toolSpecs }))
    .digest("hex");
  return { agent, toolSpecs, tools: new Map(agent.tools.map((t) => [t.name, t])), definitionHash };
}
