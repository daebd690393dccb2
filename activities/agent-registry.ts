import { createHash } from "node:crypto";
import { z } from "zod";
import type { AgentDefinition } from "../src/core/define-agent.js";
import type { ToolDefinition } from "../src/core/define-tool.js";
import { AgentNotRegisteredError, DeferralSecretError, InvalidDefinitionError } from "../src/core/errors/setup.js";
import { isAsyncTool } from "../src/core/define-async-tool.js";
import type { ToolSpec } from "../src/core/model.js";
import type { StandardSchema } from "../src/core/schema.js";
import { definitionPartsOf, type DefinitionParts } from "../src/core/fingerprint.js";
import { SUB_AGENT_PARAMETERS, subAgentDescription, subAgentToolName } from "../src/core/sub-agents.js";

/** An agent as the worker serves it: its definition plus what is derived once at start-up. */
export interface PreparedDefinition {
  agent: AgentDefinition;
  toolSpecs: ToolSpec[];
  /** Its sub-agents as the model sees them (offered in runs and threads), by tool name with the agent each runs. */
  agentSpecs: ToolSpec[];
  subAgents: Map<string, string>;
  tools: Map<string, ToolDefinition>;
  /** The JSON Schema of each gated tool's `approval.resultSchema`, by tool name: what a `respond` decision must fit. */
  resultSchemas: Map<string, Record<string, unknown>>;
  /** The JSON Schema of the agent's `output`, as the model is asked for it. */
  outputSpec?: { name: string; schema: Record<string, unknown> };
  /** Covers what a deferred step depends on: system, model, tool names, descriptions, schemas, `version`. */
  definitionHash: string;
  /** A short hash of each part the definition hash covers: what RC5048 names when it refuses. */
  definitionParts: DefinitionParts;
  /**
   * Hashes a deferral may carry and still resume: `definitionHash`, plus, for a function
   * system prompt, the hash runs deferred with before fingerprints stopped reading its
   * source text (same build only), so those parked runs survive the upgrade.
   */
  acceptedHashes: ReadonlySet<string>;
}

/**
 * JSON Schema of what a schema accepts, without the `$schema` key model APIs reject; or
 * undefined when the schema's library cannot describe it.
 */
export function jsonSchemaOf(schema: StandardSchema): Record<string, unknown> | undefined {
  let json: Record<string, unknown> | undefined;
  if ("_zod" in schema) {
    // Any zod 4 schema (this package's copy, the user's, zod/mini) converts with this copy,
    // exactly as before, so definition hashes of deferred runs do not change.
    json = z.toJSONSchema(schema as unknown as z.ZodType, { io: "input" }) as Record<string, unknown>;
  } else {
    json = schema["~standard"].jsonSchema?.input({ target: "draft-2020-12" });
  }
  if (!json) return undefined;
  const { $schema: _drop, ...rest } = json;
  return rest;
}

function parametersOf(tool: ToolDefinition): Record<string, unknown> {
  const parameters = jsonSchemaOf(tool.input as unknown as StandardSchema);
  if (!parameters) {
    throw new InvalidDefinitionError({ subject: `tool "${tool.name}"`, problem: "its input schema cannot be described as JSON Schema (use zod, or a Standard JSON Schema library)" });
  }
  return parameters;
}

function resultSchemaOf(tool: ToolDefinition): Record<string, unknown> {
  const schema = jsonSchemaOf(tool.approval!.resultSchema as unknown as StandardSchema);
  if (!schema) throw new InvalidDefinitionError({ subject: `tool "${tool.name}"`, problem: "its approval.resultSchema cannot be described as JSON Schema (use zod, or a Standard JSON Schema library)" });
  return schema;
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
    // Sub-agents run where their parents do: registered with them unless listed already (the same definition).
    const pending = agents.flatMap((a) => a.agents ?? []);
    for (let agent = pending.shift(); agent; agent = pending.shift()) {
      const known = this.#agents.get(agent.id);
      if (known?.agent === agent) continue;
      if (known) throw new InvalidDefinitionError({ subject: "worker", problem: `two agents have the id "${agent.id}" (one of them is a sub-agent)` });
      this.#agents.set(agent.id, prepare(agent));
      pending.push(...(agent.agents ?? []));
    }
  }

  /**
   * Refuses (RC5040) a worker that would run async tools' callbacks without a secret to
   * mint their answer tokens: better at start-up than at the first call. `queue` says which
   * callbacks this worker runs: those on that tool queue (a tool worker), or undefined for
   * those without one (an agent worker).
   */
  assertAnswerTokensMintable(deferral: unknown, queue: string | undefined): void {
    if (deferral) return;
    for (const { agent } of this.#agents.values()) {
      // An agent worker mints the tokens of approval requests, when the model's answer arrives.
      const gated = queue === undefined ? agent.tools.find((t) => t.needsApproval !== undefined && t.needsApproval !== false) : undefined;
      if (gated) {
        throw new DeferralSecretError({
          reason: `no secret was given, and agent "${agent.id}" has the tool "${gated.name}" that needs approval, whose requests get tokens minted with it`,
        });
      }
      const tool = agent.tools.find((t) => isAsyncTool(t) && t.queue === queue);
      if (tool) {
        throw new DeferralSecretError({
          reason: `no secret was given, and agent "${agent.id}" has the async tool "${tool.name}", whose callbacks get answer tokens minted with it`,
        });
      }
    }
  }

  /** The agent's definition, if registered (no error: for telemetry, which must never fail a call). */
  find(agentId: string): PreparedDefinition | undefined {
    return this.#agents.get(agentId);
  }

  get(agentId: string): PreparedDefinition {
    const found = this.#agents.get(agentId);
    if (!found) throw new AgentNotRegisteredError({ agentId, registered: [...this.#agents.keys()] });
    return found;
  }
}

function prepare(agent: AgentDefinition): PreparedDefinition {
  const toolSpecs = agent.tools.map((t) => ({ name: t.name, description: t.description, parameters: parametersOf(t) }));
  const agentSpecs = (agent.agents ?? []).map((a) => ({ name: subAgentToolName(a.id), description: subAgentDescription(a), parameters: SUB_AGENT_PARAMETERS }));
  const outputSpec = agent.output ? { name: `${agent.id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 56)}_output`, schema: outputSchemaOf(agent) } : undefined;
  // Sub-agents count like tools; an agent without them hashes as it always did.
  const definitionHash = sha256(fingerprintSource(agent, [...toolSpecs, ...agentSpecs], outputSpec?.schema));
  // What fingerprints were before: a function's source text, which differs between builds.
  const legacy = typeof agent.system === "function" ? sha256(JSON.stringify({ system: String(agent.system), model: agent.model, tools: toolSpecs })) : undefined;
  return {
    agent,
    toolSpecs,
    agentSpecs,
    subAgents: new Map((agent.agents ?? []).map((a) => [subAgentToolName(a.id), a.id])),
    tools: new Map(agent.tools.map((t) => [t.name, t])),
    resultSchemas: new Map(agent.tools.flatMap((t) => (t.approval?.resultSchema ? [[t.name, resultSchemaOf(t)] as const] : []))),
    ...(outputSpec ? { outputSpec } : {}),
    definitionHash,
    definitionParts: definitionPartsOf({
      system: typeof agent.system === "string" ? agent.system : { function: true },
      model: agent.model,
      tools: toolSpecs,
      agents: agentSpecs,
      settings: agent.settings ?? null,
      output: outputSpec?.schema ?? null,
      version: agent.version ?? null,
    }),
    acceptedHashes: new Set(legacy ? [definitionHash, legacy] : [definitionHash]),
  };
}

/**
 * What the definition fingerprint covers: only what is the same however the code was built.
 * A string prompt is its text (hashed exactly as before, so parked runs keep their hash); a
 * function prompt (and `transformMessages`) is represented by the agent's `version`, since
 * its source text changes with the compiler and its output with the principal. Model
 * settings count when declared.
 */
function fingerprintSource(agent: AgentDefinition, tools: ToolSpec[], output: Record<string, unknown> | undefined): string {
  if (typeof agent.system === "string" && agent.version === undefined && agent.settings === undefined && output === undefined) {
    return JSON.stringify({ system: agent.system, model: agent.model, tools });
  }
  const system = typeof agent.system === "string" ? agent.system : { function: true };
  return JSON.stringify({ system, model: agent.model, tools, version: agent.version ?? null, settings: agent.settings ?? null, ...(output ? { output } : {}) });
}

function outputSchemaOf(agent: AgentDefinition): Record<string, unknown> {
  const schema = jsonSchemaOf(agent.output as StandardSchema);
  if (!schema) {
    throw new InvalidDefinitionError({ subject: `agent "${agent.id}"`, problem: "its output schema cannot be described as JSON Schema (use zod, or a Standard JSON Schema library)" });
  }
  return schema;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
