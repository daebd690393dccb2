import { InvalidDefinitionError } from "./errors/setup.js";

/** What this module reads of an agent (an `AgentDefinition`; named structurally, as define-agent.ts imports this). */
interface SubAgent {
  readonly kind: "agent";
  id: string;
  description?: string;
  tools: ReadonlyArray<{ name: string }>;
  authorize?: unknown;
}

/** The most sub-agents one agent may list: each is a tool the model reads about on every call. */
export const MAX_SUB_AGENTS = 16;

/** The name the model calls a sub-agent by: its id, with what tool names may not hold replaced. */
export function subAgentToolName(agentId: string): string {
  return agentId.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
}

/** What the model is told a sub-agent takes: one task, in words. */
export const SUB_AGENT_PARAMETERS: Record<string, unknown> = {
  type: "object",
  properties: { prompt: { type: "string", description: "The task for the agent, with everything it needs to know" } },
  required: ["prompt"],
  additionalProperties: false,
};

/** The tool description of a sub-agent: its own, or one made from its id. */
export function subAgentDescription(agent: Pick<SubAgent, "id" | "description">): string {
  return agent.description ?? `Hands a task to the "${agent.id}" agent and returns its final answer.`;
}

/**
 * The sub-agents an agent declares, checked: each from defineAgent(), none twice, not the
 * agent itself, no name the model would confuse with one of its tools, and none that
 * declares `authorize` (asked only by `ctx.dispatch`).
 */
export function subAgentsOf<A extends SubAgent>(options: { id: string; agents?: readonly A[] | undefined; tools?: ReadonlyArray<{ name: string }> }, subject: string): A[] | undefined {
  const { agents } = options;
  if (agents === undefined) return undefined;
  const bad = (problem: string) => new InvalidDefinitionError({ subject, problem });
  if (!Array.isArray(agents)) throw bad("agents must be an array of agents from defineAgent()");
  if (agents.length > MAX_SUB_AGENTS) throw bad(`agents may list at most ${MAX_SUB_AGENTS} agents`);
  const names = new Set((options.tools ?? []).map((t) => t.name));
  const list: readonly A[] = agents;
  for (const agent of list) {
    if (agent?.kind !== "agent") throw bad("every entry of agents must come from defineAgent()");
    if (agent.id === options.id) throw bad("an agent cannot list itself in agents");
    const name = subAgentToolName(agent.id);
    if (names.has(name)) throw bad(`the agent "${agent.id}" would be called "${name}", a name already taken by a tool or another agent`);
    names.add(name);
    // Its hook is asked where a tool dispatches it (an activity); a child workflow has no such place yet.
    if (agent.authorize !== undefined) throw bad(`the agent "${agent.id}" declares authorize, which is asked only when a tool dispatches it: use ctx.dispatch for it`);
  }
  return list.length > 0 ? [...list] : undefined;
}

