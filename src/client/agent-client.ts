import { randomUUID } from "node:crypto";
import {
  Client,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  type ConnectionLike,
  type WorkflowHandle,
} from "@temporalio/client";
import type { agentRun } from "../../workflows/agent-run.js";
import { runStateQuery } from "../../workflows/messages.js";
import type { AgentResult, AgentRunInput, RunState } from "../../workflows/run-state.js";
import type { AgentDefinition } from "../define-agent.js";
import { unwrapFailure } from "../errors/from-failure.js";
import { InvalidDefinitionError } from "../errors/invalid-definition.js";
import { RunNotFoundError } from "../errors/run-not-found.js";
import type { Principal } from "../json.js";

export interface AgentClientOptions {
  /** A `Connection` or `NativeConnection`; ignored when `client` is given. */
  connection?: ConnectionLike;
  /** An existing Temporal client to reuse. */
  client?: Client;
  /** Default `"default"`. */
  namespace?: string;
  /** Task queue the agent workers poll. */
  taskQueue: string;
}

export interface RunOptions {
  /** The user's message that starts the run. */
  prompt: string;
  /** Who the run acts for; tools read it as `ctx.principal`. */
  principal?: Principal;
  /**
   * The run's id (its workflow id). Starting the same id again attaches to the run
   * that already exists instead of starting a second one. Random when absent.
   */
  runId?: string;
}

/** A started run. */
export interface RunHandle {
  runId: string;
  /** Waits for the run to finish: its result, or its typed error. */
  result(): Promise<AgentResult>;
  /** The live state: status, messages, turns used, token usage. */
  state(): Promise<RunState>;
}

/** What services use to start agent runs and follow them. */
export class AgentClient {
  readonly client: Client;
  readonly taskQueue: string;

  constructor(options: AgentClientOptions) {
    if (!options?.taskQueue) {
      throw new InvalidDefinitionError({ subject: "AgentClient", problem: "taskQueue is required" });
    }
    this.taskQueue = options.taskQueue;
    this.client =
      options.client ??
      new Client({ namespace: options.namespace ?? "default", ...(options.connection ? { connection: options.connection } : {}) });
  }

  /** Starts a run, or attaches to the run that already has `options.runId`. */
  async start(agent: AgentDefinition | string, options: RunOptions): Promise<RunHandle> {
    const agentId = typeof agent === "string" ? agent : agent?.id;
    if (typeof agentId !== "string" || agentId === "") {
      throw new InvalidDefinitionError({ subject: "run", problem: "pass an agent from defineAgent() or its id" });
    }
    if (typeof options?.prompt !== "string") {
      throw new InvalidDefinitionError({ subject: `run of agent "${agentId}"`, problem: "prompt must be a string" });
    }
    const runId = options.runId ?? `${agentId}-${randomUUID()}`;
    const input: AgentRunInput = { agentId, prompt: options.prompt, ...(options.principal ? { principal: options.principal } : {}) };
    try {
      await this.client.workflow.start<typeof agentRun>("agentRun", {
        workflowId: runId,
        taskQueue: this.taskQueue,
        args: [input],
        // Same id while running: attach. Same id after it closed: refused below, then attach.
        workflowIdConflictPolicy: "USE_EXISTING",
        workflowIdReusePolicy: "REJECT_DUPLICATE",
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
    return this.handle(runId);
  }

  /** Starts (or attaches to) a run and waits for its result. */
  async run(agent: AgentDefinition | string, options: RunOptions): Promise<AgentResult> {
    return (await this.start(agent, options)).result();
  }

  /** A handle on an existing run. */
  handle(runId: string): RunHandle {
    const wf = this.client.workflow.getHandle<typeof agentRun>(runId);
    return {
      runId,
      result: () => translate(runId, () => wf.result()),
      state: () => translate(runId, () => wf.query(runStateQuery)),
    };
  }

  /** The run's result once it finishes. */
  result(runId: string): Promise<AgentResult> {
    return this.handle(runId).result();
  }

  /** The run's live state. */
  state(runId: string): Promise<RunState> {
    return this.handle(runId).state();
  }

  /** Exposed for advanced use: the raw Temporal handle of a run. */
  workflowHandle(runId: string): WorkflowHandle<typeof agentRun> {
    return this.client.workflow.getHandle<typeof agentRun>(runId);
  }
}

async function translate<T>(runId: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new RunNotFoundError({ runId });
    if (err instanceof WorkflowFailedError) throw unwrapFailure(err);
    throw err;
  }
}
