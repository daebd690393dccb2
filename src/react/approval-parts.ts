/**
 * A thread's approval requests in the AI SDK's terms: a gated tool's call is a tool part in
 * `approval-requested` (with `approval.id`), `approval-responded` once the person chose, and
 * `output-denied` when the thread rejected it. Pure: the hooks, the `useChat` transport and
 * tests share it, and it runs in a browser or on a server.
 */
import type { Decision } from "../core/approval.js";
import type { PendingApproval } from "../core/thread-contracts.js";
import type { ChatUIMessage, ChatUIPart, ChatUIToolPart } from "../core/ui-messages.js";

/** A gated tool's call in one of the AI SDK's approval states (`tool-<name>`, as `ChatUIToolPart`). */
export type ChatUIApprovalPart = { type: `tool-${string}`; toolCallId: string; input: unknown } & (
  | {
      /** Waits for a person: answer with `addToolApprovalResponse({ id: approval.id, approved, reason })` (useChat) or `approve`/`reject` (useAgentChat). */
      state: "approval-requested";
      approval: { id: string };
    }
  | { state: "approval-responded"; approval: { id: string; approved: boolean; reason?: string } }
  | {
      /** Rejected: the tool never ran; the model was told why. */
      state: "output-denied";
      approval: { id: string; approved: false; reason?: string };
    }
);

/** A part of a message the hooks show: the `toUIMessages` parts, and gated calls in their approval states. */
export type ChatUIApprovalMessagePart = ChatUIPart | ChatUIApprovalPart;

/** `ChatUIMessage` whose tool parts may also be in an approval state (what the hooks and `loadMessages` give). */
export interface ApprovalChatUIMessage extends Omit<ChatUIMessage, "parts"> {
  parts: ChatUIApprovalMessagePart[];
}

const PREFIX = "da:";

/**
 * The `approval.id` of one call of a request. The AI SDK answers per call and the thread
 * decides per request, so the id carries both: each component percent-encoded, which leaves
 * no `/` in either, joined by one. An unknown request (a decided call read back from storage)
 * is written with an empty approval id.
 */
export function approvalUiId(approvalId: string | undefined, toolCallId: string): string {
  return `${PREFIX}${encodeURIComponent(approvalId ?? "")}/${encodeURIComponent(toolCallId)}`;
}

/** Reads an `approval.id` this module wrote; undefined for anything else (another tool's approval, a forged or mangled id). */
export function parseApprovalUiId(id: unknown): { approvalId: string; toolCallId: string } | undefined {
  if (typeof id !== "string" || !id.startsWith(PREFIX)) return undefined;
  const pieces = id.slice(PREFIX.length).split("/");
  if (pieces.length !== 2) return undefined;
  try {
    const [approvalId, toolCallId] = pieces.map((p) => decodeURIComponent(p)) as [string, string];
    // Only the one spelling approvalUiId writes: no second id names the same call.
    if (toolCallId === "" || approvalUiId(approvalId, toolCallId) !== id) return undefined;
    return { approvalId, toolCallId };
  } catch {
    return undefined;
  }
}

const REJECTED_TAIL = " Do not call it again for the same purpose unless asked to.";
const REASON = ". Reason: ";

/**
 * The reason of a stored rejection: the thread answers a rejected call for the model with
 * `Rejected[ by <who>]: "<tool>" was not run[. Reason: <reason>|.] Do not call it again …`
 * (src/core/approval.ts `rejectedResult`; the unit tests hold the two together). Undefined
 * when `content` is anything else.
 */
export function rejectionOf(content: string, toolName: string): { reason?: string } | undefined {
  if (!content.startsWith("Rejected") || !content.endsWith(REJECTED_TAIL)) return undefined;
  const body = content.slice(0, -REJECTED_TAIL.length);
  const head = `: "${toolName}" was not run`;
  // Who rejected it may be written with the same words: the first place the rest reads as a reason wins.
  for (let at = body.indexOf(head); at >= 0; at = body.indexOf(head, at + 1)) {
    const who = body.slice(0, at);
    if (who !== "Rejected" && !who.startsWith("Rejected by ")) continue;
    const rest = body.slice(at + head.length);
    if (rest === ".") return {};
    if (rest.startsWith(REASON)) return { reason: rest.slice(REASON.length) };
  }
  return undefined;
}

const isToolPart = (part: ChatUIApprovalMessagePart): part is ChatUIToolPart | ChatUIApprovalPart => part.type.startsWith("tool-");
const toolNameOf = (part: { type: string }) => part.type.slice("tool-".length);

/**
 * Puts the thread's approval state on its UI messages: each call a pending request lists
 * becomes `approval-requested` (its `approval.id` names the request and the call), and a
 * call whose stored result is a rejection becomes `output-denied` with the reason. Messages
 * it changes nothing in are returned as they were.
 */
export function withApprovalStates(messages: readonly ChatUIMessage[], approvals: readonly PendingApproval[] = []): ApprovalChatUIMessage[] {
  const pending = new Map<string, string>();
  for (const request of approvals) for (const call of request.calls) pending.set(call.toolCallId, request.approvalId);
  return messages.map((message) => {
    if (message.role !== "assistant") return message;
    let changed = false;
    const parts = message.parts.map((part): ChatUIApprovalMessagePart => {
      if (!isToolPart(part)) return part;
      const approvalId = pending.get(part.toolCallId);
      if (part.state === "input-available" && approvalId !== undefined) {
        changed = true;
        return { type: part.type, toolCallId: part.toolCallId, input: part.input, state: "approval-requested", approval: { id: approvalUiId(approvalId, part.toolCallId) } };
      }
      const rejected = part.state === "output-available" && typeof part.output === "string" ? rejectionOf(part.output, toolNameOf(part)) : undefined;
      if (rejected) {
        changed = true;
        return {
          type: part.type,
          toolCallId: part.toolCallId,
          input: part.input,
          state: "output-denied",
          approval: { id: approvalUiId(undefined, part.toolCallId), approved: false, ...(rejected.reason !== undefined ? { reason: rejected.reason } : {}) },
        };
      }
      return part;
    });
    return changed ? { ...message, parts } : message;
  });
}

/** A part of a `UIMessage` as the approval helpers read it: any part, and of a tool part only what they read. */
export interface UIMessagePartLike {
  type: string;
  toolCallId?: string;
  state?: string;
  approval?: { id?: unknown; approved?: unknown; reason?: unknown };
}

/**
 * The decisions the responded parts of `message` carry, one list per request (the thread
 * takes every call of a request in one decision): `approved` with the reason as a `note`, or
 * rejected with the `reason` the model will read. Parts whose `approval.id` this module did
 * not write are left alone.
 */
export function approvalResponses(message: { parts: readonly UIMessagePartLike[] }): Map<string, Decision[]> {
  const byRequest = new Map<string, Decision[]>();
  for (const part of message.parts) {
    if (part.state !== "approval-responded" || !part.type.startsWith("tool-")) continue;
    const id = parseApprovalUiId(part.approval?.id);
    if (!id || id.approvalId === "" || id.toolCallId !== part.toolCallId || typeof part.approval?.approved !== "boolean") continue;
    const reason = typeof part.approval.reason === "string" && part.approval.reason !== "" ? part.approval.reason : undefined;
    const decision: Decision = part.approval.approved
      ? { toolCallId: id.toolCallId, approved: true, ...(reason !== undefined ? { note: reason } : {}) }
      : { toolCallId: id.toolCallId, approved: false, ...(reason !== undefined ? { reason } : {}) };
    const list = byRequest.get(id.approvalId) ?? [];
    list.push(decision);
    byRequest.set(id.approvalId, list);
  }
  return byRequest;
}

/**
 * For `useChat({ sendAutomaticallyWhen })`: true once the last answer's last step has an
 * approval response and no call left waiting for one. Unlike the AI SDK's
 * `lastAssistantMessageIsCompleteWithApprovalResponses` it does not wait for the step's other
 * calls: the thread runs those itself, and their results may be held until the gated call has
 * its own (a thread keeps a step's results in the model's order).
 */
export function approvalResponsesReady({ messages }: { messages: ReadonlyArray<{ role: string; parts: readonly UIMessagePartLike[] }> }): boolean {
  const last = messages.at(-1);
  if (last?.role !== "assistant") return false;
  const stepStart = last.parts.reduce((at, p, i) => (p.type === "step-start" ? i : at), -1);
  const calls = last.parts.slice(stepStart + 1).filter((p) => p.type.startsWith("tool-") || p.type === "dynamic-tool");
  return calls.some((p) => p.state === "approval-responded") && !calls.some((p) => p.state === "approval-requested");
}
