import { randomUUID } from "node:crypto";
import {
  Client,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type WorkflowHandle,
} from "@temporalio/client";
import type { agentRun } from "../../workflows/agent-run.js";
import type { DeferredAck } from "../core/deferral-record.js";
import { cancelUpdate, runStateQuery, settledUpdate } from "../core/wire/run.js";
import type { AgentResult, AgentRunInput, RunMessagePage, RunState } from "../core/run-state.js";
import { currentResult, readRunMessages, type RunMessagesOptions } from "./run-messages.js";
import { resolveDeferralConfig, type DeferralConfig, type ResolvedDeferralConfig } from "../deferral/config.js";
import type { AgentDefinition } from "../core/define-agent.js";
import { durationMs } from "../core/duration.js";
import type { Duration } from "@temporalio/common";
import { unwrapFailure } from "../core/errors/from-failure.js";
import { InvalidDefinitionError } from "../core/errors/invalid-definition.js";
import { RunNotFoundError } from "../core/errors/run-not-found.js";
import type { Principal } from "../core/json.js";
import { plainJsonProblem } from "../core/json-check.js";
import { connect, type ClientConnectionOptions } from "./connection.js";
import { ThreadsClient, type ThreadsClientOptions } from "../threads/threads-client.js";
import { DeferralStore } from "./deferral-store.js";
import { startAgentRun } from "./start-run.js";
import { resumeDeferral, type AuthorizeHook, type ResumeOptions, type ResumeResult } from "./resume.js";

export interface AgentClientOptions extends ClientConnectionOptions {
  /** Needed to resume: the secret the workers sign tokens with (32+ bytes), or `secrets: [current, ...previous]` while rotating. */
  deferral?: Pick<DeferralConfig, "secret" | "secrets">;
  /** Client-wide resume check; a per-call `authorize` replaces it. */
  authorize?: AuthorizeHook;
  /** Options of `agents.threads`: the default agent of new threads and their authorize hook. */
  threads?: Pick<ThreadsClientOptions, "agent" | "authorize">;
}

export interface RunOptions {
  /** The user's message that starts the run. */
  prompt: string;
  /** Who the run acts for; tools read it as `ctx.principal`. Plain JSON. */
  principal?: Principal;
  /**
   * The run's id (its workflow id). Starting the same id again attaches to the run
   * that already exists instead of starting a second one. Random when absent.
   */
  runId?: string;
  /**
   * Cancels the run (AI1005) if it has not finished this long after it started, time spent
   * deferred included, e.g. `"7d"`. Its deferral, if any, is denied.
   */
  timeout?: Duration;
}

/** A started run. */
export interface RunHandle {
  runId: string;
  /** Waits until the run completes (its result), fails (its typed error) or defers (the acknowledgment). */
  settled(): Promise<AgentResult | DeferredAck>;
  /** Waits for the run to finish: its result, or its typed error. Stays pending while it is deferred. */
  result(): Promise<AgentResult>;
  /** The live state: status, turns used, token usage, the newest messages and how many there are. */
  state(): Promise<RunState>;
  /** A page of the transcript, oldest first (see `AgentClient.messages`). */
  messages(options?: RunMessagesOptions): Promise<RunMessagePage>;
}

/** What services use to start agent runs, follow them, and resume their deferrals. */
export class AgentClient {
  readonly client: Client;
  readonly taskQueue: string;
  /** Read access to deferral records. */
  readonly deferrals: DeferralStore;
  readonly #deferral: ResolvedDeferralConfig | undefined;
  readonly #authorize: AuthorizeHook | undefined;
  readonly #threadOptions: AgentClientOptions["threads"];
  #threads: ThreadsClient | undefined;

  constructor(options: AgentClientOptions) {
    ({ client: this.client, taskQueue: this.taskQueue } = connect(options, "AgentClient"));
    this.#deferral = options.deferral ? resolveDeferralConfig(options.deferral) : undefined;
    this.#authorize = options.authorize;
    this.#threadOptions = options.threads;
    this.deferrals = new DeferralStore(this.client);
  }

  /** Long-lived chat threads on the same connection and task queue. */
  get threads(): ThreadsClient {
    return (this.#threads ??= new ThreadsClient({ client: this.client, taskQueue: this.taskQueue, ...this.#threadOptions }));
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
    const principalProblem = options.principal === undefined ? undefined : plainJsonProblem(options.principal);
    if (principalProblem) {
      throw new InvalidDefinitionError({ subject: `run of agent "${agentId}"`, problem: `principal is not plain JSON at ${principalProblem.path}` });
    }
    const runId = options.runId ?? `${agentId}-${randomUUID()}`;
    const input: AgentRunInput = {
      agentId,
      prompt: options.prompt,
      ...(options.principal ? { principal: options.principal } : {}),
      ...(options.timeout !== undefined ? { timeoutMs: durationMs(options.timeout, `run of agent "${agentId}" timeout`, "7d") } : {}),
    };
    await startAgentRun(this.client, this.taskQueue, runId, input);
    return this.handle(runId);
  }

  /**
   * Starts (or attaches to) a run and waits until it settles: the `AgentResult` when it
   * completes, the `Deferred` acknowledgment as soon as it parks, its typed error when it fails.
   */
  async run(agent: AgentDefinition | string, options: RunOptions): Promise<AgentResult | DeferredAck> {
    return (await this.start(agent, options)).settled();
  }

  /** A handle on an existing run. */
  handle(runId: string): RunHandle {
    const wf = this.workflowHandle(runId);
    const result = () => translate(runId, async () => currentResult(await wf.result()));
    return {
      runId,
      result,
      state: () => translate(runId, () => wf.query(runStateQuery)),
      messages: (options) => translate(runId, () => readRunMessages(wf, options)),
      settled: async () => {
        let outcome;
        try {
          outcome = await wf.executeUpdate(settledUpdate);
        } catch (err) {
          // A closed run takes no updates; its result (or error) is the settled state.
          if (err instanceof WorkflowUpdateFailedError) throw unwrapFailure(err);
          return result();
        }
        return outcome.status === "deferred" ? outcome : result();
      },
    };
  }

  /**
   * Cancels a run: it stops the model call or tool in flight (their AbortSignal fires), denies
   * a deferral it waits on (its tokens then read RC5050), and fails with AI1005 carrying the
   * turns and the whole run's usage. A run that already finished is left as it is; AI1010
   * for an unknown run.
   */
  async cancel(runId: string, options: { reason?: string } = {}): Promise<void> {
    const wf = this.workflowHandle(runId);
    try {
      await wf.executeUpdate(cancelUpdate, { args: [{ ...(options.reason ? { reason: options.reason } : {}) }] });
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) throw unwrapFailure(err);
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      // Closed runs take no updates: fine, unless the run never existed.
      await translate(runId, () => wf.describe());
    }
  }

  /** The run's result once it finishes. */
  result(runId: string): Promise<AgentResult> {
    return this.handle(runId).result();
  }

  /** The run's live state: status, turns, usage, the newest messages (`recentMessages`) and `messageCount`. */
  state(runId: string): Promise<RunState> {
    return this.handle(runId).state();
  }

  /**
   * A page of the run's transcript, oldest first: pass the returned `cursor` for the next
   * page; none means the end. Works while the run runs or waits deferred, and after it
   * finished (a worker then replays the run to answer, so one must be running). Pages stay
   * well under Temporal's payload limit however long the run: at most `limit` messages
   * (default 100, at most 1,000) and 1 MiB of JSON, but always at least one message.
   */
  messages(runId: string, options?: RunMessagesOptions): Promise<RunMessagePage> {
    return this.handle(runId).messages(options);
  }

  /**
   * Resumes a deferral with the token its tool handed out. Checks, in order, each
   * refusing with its code and changing nothing: token (RC5041), record exists (RC5046),
   * call binding (RC5055), authorize hook (RC5056), lifecycle (a duplicate gets the first
   * outcome; RC5050 denied), deadline (RC5047), fits the context window (AI1009), schema
   * (RC5049, token not spent), plain JSON (RC5042). Then the run continues, and this
   * returns its next settled state; if the agent's definition changed while it waited, the
   * deferral is denied as the step starts and this fails with RC5048.
   */
  resume(options: ResumeOptions): Promise<ResumeResult> {
    return resumeDeferral(
      { client: this.client, deferrals: this.deferrals, secrets: this.#deferral?.secrets, authorize: this.#authorize },
      options,
    );
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
