import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { isGrpcServiceError, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client, type WorkflowHandle } from "@temporalio/client";
import type { UpdateDefinition } from "@temporalio/common";
import type { agentThread } from "../../../workflows/threads/agent-thread.js";
import type { AgentDefinition } from "../../core/define-agent.js";
import type { ThreadInput } from "../../core/thread-contracts.js";
import { unwrapFailure } from "../../core/errors/from-failure.js";
import { InvalidDefinitionError } from "../../core/errors/setup.js";
import { ThreadNotFoundError, ThreadUnauthorizedError } from "../../core/errors/threads.js";
import { askAuthorize, type AuthorizeHook, type ThreadAuthorizeRequest, type ThreadOperation } from "../authorize.js";
import { boundedQuery, type QueryDeadline } from "../bounded-query.js";
import type { Caller } from "../authorize.js";

/** The raw Temporal handle of a thread (`ThreadsClient.workflowHandle`), for advanced use: the thread's workflow takes a `ThreadInput`. */
export type ThreadWorkflowHandle = WorkflowHandle<(input: ThreadInput) => Promise<{ deleted: true }>>;

/**
 * What every thread verb works through: the connection, the `authorize` hook and the
 * deferral secrets of one `ThreadsClient`, and its bounded, translated reads and updates.
 * Internal: the class is the public surface and hands this to the verb it delegates to.
 */
export class ThreadAccess {
  constructor(
    readonly client: Client,
    readonly taskQueue: string,
    readonly reads: QueryDeadline,
    readonly agentId: string | undefined,
    readonly authorize: AuthorizeHook | undefined,
    readonly secrets: Buffer[] | undefined,
  ) {}

  handle(threadId: string): ThreadWorkflowHandle {
    return this.client.workflow.getHandle<typeof agentThread>(threadId);
  }

  async check(
    options: { threadId?: string } & Caller,
    operation: Exclude<ThreadOperation, "thread.create" | "thread.list" | "thread.toolResult" | "thread.toolError" | "thread.decide">,
  ): Promise<void> {
    await this.ask({ operation, principal: options?.principal, threadId: threadIdOf(options, operation) });
  }

  /** AI1021 unless the hook returns exactly `true`; no hook allows everything. */
  async ask(request: ThreadAuthorizeRequest): Promise<void> {
    if (!this.authorize) return;
    const hook = this.authorize;
    const verdict = await askAuthorize(() => hook(request));
    if (!verdict.allowed) throw new ThreadUnauthorizedError({ threadId: request.threadId, operation: request.operation, returned: verdict.returned });
  }

  async allowed(request: ThreadAuthorizeRequest): Promise<boolean> {
    const hook = this.authorize;
    return !hook || (await askAuthorize(() => hook(request))).allowed;
  }

  /** A read of the thread; `via` is the client whose connection `call` uses. */
  async query<T>(threadId: string, call: () => Promise<T>, via: Client = this.client): Promise<T> {
    try {
      return await boundedQuery(via, this.reads, threadId, call);
    } catch (err) {
      throw translate(threadId, err);
    }
  }

  /** A read of the thread the server answers alone, however long it waits (a describe, a long-poll of its history): translated as `query`'s, with no deadline. */
  async read<T>(threadId: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      throw translate(threadId, err);
    }
  }

  async update<Ret, Args extends unknown[]>(threadId: string, definition: UpdateDefinition<Ret, Args>, ...args: Args): Promise<Ret> {
    const handle = this.handle(threadId);
    for (let attempt = 1; ; attempt++) {
      try {
        // The definitions are typed where they are declared; the generic overloads cannot see it here.
        return (await handle.executeUpdate(definition as unknown as UpdateDefinition<Ret, [unknown]>, { args: args as unknown as [unknown] })) as Ret;
      } catch (err) {
        // An update that lands while the thread continues as new is not admitted; the new run takes it.
        // The same when the server dropped the update because the workflow task it rode in
        // failed (e.g. the workflow completed a command as new events arrived): nothing was
        // applied, and every thread update is safe to send again.
        if (attempt < 5 && (isContinuedAsNew(err) || isWorkflowTaskRace(err))) {
          await sleep(50 * attempt);
          continue;
        }
        throw translate(threadId, err);
      }
    }
  }
}

// gRPC status code (stable across gRPC implementations): a history read of a workflow that is not there.
const GRPC_NOT_FOUND = 5;

export function threadIdOf(options: { threadId?: string } | undefined, operation: ThreadOperation): string {
  const threadId = options?.threadId;
  if (typeof threadId !== "string" || threadId === "") {
    throw new InvalidDefinitionError({ subject: operation, problem: "threadId must be a non-empty string" });
  }
  return threadId;
}

export function agentIdOf(agent: AgentDefinition | string | undefined): string | undefined {
  if (agent === undefined) return undefined;
  const id = typeof agent === "string" ? agent : agent?.id;
  if (typeof id !== "string" || id === "") throw new InvalidDefinitionError({ subject: "thread", problem: "pass an agent from defineAgent() or its id" });
  return id;
}

export const newMessageId = () => `msg-${randomUUID()}`;

function translate(threadId: string, err: unknown): unknown {
  if (err instanceof WorkflowNotFoundError || (isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND)) return new ThreadNotFoundError({ threadId });
  if (err instanceof WorkflowUpdateFailedError) return unwrapFailure(err);
  if (isClosed(err)) return new ThreadNotFoundError({ threadId });
  return err;
}

function isClosed(err: unknown): boolean {
  return err instanceof Error && /workflow execution already completed|workflow execution is already completed/i.test(err.message);
}

function isWorkflowTaskRace(err: unknown): boolean {
  const cause = (err as { cause?: unknown })?.cause;
  return [err, cause].some((e) => e instanceof Error && /unexpected workflow task failure/i.test(e.message));
}

function isContinuedAsNew(err: unknown): boolean {
  return err instanceof Error && /continued as new|continue.?as.?new/i.test(err.message);
}
