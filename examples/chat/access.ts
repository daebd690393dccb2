/**
 * Who may do what in the chat example: the front door's `authenticate` (who is calling) and
 * the clients' `authorize` hook (what they may do). Copy the shape, not the login: a real
 * app reads a session cookie or a bearer token where this reads `x-user`.
 */
import type { Client } from "@temporalio/client";
import { AgentClient, ThreadsClient, type AuthorizeHook, type JsonObject, type Principal } from "../../src/index.js";
import { supportAgent } from "./agent.js";

/**
 * The example's stand-in for a login: the page sends `x-user` (picked with `?user=` in its
 * address). Sam and Lee are customers; Mia is a manager, who decides what needs a manager.
 */
export const PEOPLE: Record<string, Principal> = {
  sam: { id: "sam", roles: [] },
  lee: { id: "lee", roles: [] },
  mia: { id: "mia", roles: ["manager"] },
};

/** `authenticate` for the front door: a known `x-user`, or anonymous (`undefined`). */
export const principalOf = (headers: { get(name: string): string | null }): Principal | undefined => {
  const user = headers.get("x-user") ?? "";
  return Object.hasOwn(PEOPLE, user) ? PEOPLE[user] : undefined;
};

export const isManager = (principal: Principal | undefined): boolean => Array.isArray(principal?.roles) && principal.roles.includes("manager");

/** The roles an approval request names (its tools' `approval.meta.requires`); none for a customer's own confirmation. */
const requiredRoles = (meta: JsonObject): string[] => (Array.isArray(meta.requires) ? meta.requires.map(String) : []);
const holdsAll = (principal: Principal, roles: string[]) => roles.every((role) => Array.isArray(principal.roles) && principal.roles.includes(role));

/**
 * The hook both clients ask. Anonymous callers may do nothing. A thread belongs to whoever
 * created it (the principal it acts for): only they read it, follow it, write to it, stop
 * or delete it. An approval request is decided by who it names: one that requires roles
 * (a refund: the manager) by someone holding them all, in the thread or in the inbox; one
 * that names none (cancelling an order) by the thread's owner, in the chat, and by no one
 * else. Managers may list and read the inbox's requests and a thread's status, never its
 * messages, except what led to a request they may decide (`approval.context`: the customer's
 * message and the assistant's last words before the call). The chat app starts no runs and no schedules: the other run, deferral and
 * schedule operations stay shut.
 */
export function chatAuthorize(ownerOf: (threadId: string) => Promise<string | undefined>): AuthorizeHook {
  return async (request) => {
    const caller = request.principal;
    if (!caller) return false;
    if (request.runId !== undefined) {
      // The inbox's operations, on the requests threads keep (a request's run id is its thread's).
      switch (request.operation) {
        case "deferral.list":
        case "deferral.get":
          return isManager(caller);
        case "resume": {
          const roles = requiredRoles(request.deferral.meta);
          return roles.length > 0 && holdsAll(caller, roles);
        }
        case "approval.context": {
          // Why the agent asks: for those who may decide, so they decide knowing.
          const roles = requiredRoles(request.meta);
          return roles.length > 0 && holdsAll(caller, roles);
        }
        default:
          return false;
      }
    }
    // The chat app schedules nothing.
    if (request.threadId === undefined) return false;
    switch (request.operation) {
      case "thread.create":
        // Front-door callers can never vouch for a transcript; in-process code could.
        return !request.trustTranscript;
      case "thread.toolResult":
      case "thread.toolError":
        // The agent has no async tools: no answer is anyone's to give.
        return false;
      case "thread.decide": {
        const roles = requiredRoles(request.meta);
        if (roles.length > 0) return holdsAll(caller, roles);
        break;
      }
      case "thread.get":
        if (isManager(caller)) return true;
        break;
      default:
        break;
    }
    return (await ownerOf(request.threadId)) === caller.id;
  };
}

/**
 * Reads who a thread belongs to from the thread itself (the principal it was created for),
 * through a client without a hook: the app's own read, never a caller's. A thread's principal
 * never changes, so each answer is kept (the oldest forgotten past `limit`); a thread that
 * cannot be read has no owner, and is refused.
 */
export function threadOwners(reader: ThreadsClient, limit = 10_000): (threadId: string) => Promise<string | undefined> {
  const known = new Map<string, string>();
  return async (threadId) => {
    const cached = known.get(threadId);
    if (cached !== undefined) return cached;
    const owner = await reader.state({ threadId }).then(
      (thread) => thread.principal?.id,
      () => undefined,
    );
    if (owner === undefined) return undefined;
    if (known.size >= limit) known.delete(known.keys().next().value!);
    known.set(threadId, owner);
    return owner;
  };
}

export interface ChatClientOptions {
  /** The Temporal client to share. */
  client: Client;
  taskQueue: string;
  /** The deferral secret the worker has: deciding a request mints its token with it (it never leaves the server). */
  secret: string;
}

/** The example's `AgentClient`: threads of the support agent, every call asked of `chatAuthorize`. */
export function chatAgentClient(options: ChatClientOptions): AgentClient {
  const reader = new ThreadsClient({ client: options.client, taskQueue: options.taskQueue, agent: supportAgent });
  return new AgentClient({
    client: options.client,
    taskQueue: options.taskQueue,
    deferral: { secret: options.secret },
    threads: { agent: supportAgent },
    authorize: chatAuthorize(threadOwners(reader)),
  });
}
