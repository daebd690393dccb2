/**
 * The key that lets a reader into a run's or thread's live stream on a worker's endpoint
 * (`directStreamTransport`). Made at random by the client that starts the workflow and kept
 * in its memo, which continue-as-new carries: readable by whoever may describe the workflow
 * in Temporal (and so read its history anyway), encrypted by the payload codec when there is
 * one, and never in a token, a link or a page. Sandbox-safe: workflows derive their
 * children's keys with it.
 */
import { hashText } from "./proof.js";

/** The memo field that holds the key. */
export const STREAM_KEY_MEMO = "durableAgentsStreamKey";

/** The key's shape: 32 bytes, base64url (what `newStreamKey` makes, and a child's 32-byte hex digest). */
const STREAM_KEY_SHAPE = /^(?:[A-Za-z0-9_-]{43}|[0-9a-f]{64})$/;

/** The key in a workflow's (decoded) memo, or undefined: a workflow started without one has no live stream on an endpoint. */
export function streamKeyOf(memo: Record<string, unknown> | undefined): string | undefined {
  const key = memo?.[STREAM_KEY_MEMO];
  return typeof key === "string" && STREAM_KEY_SHAPE.test(key) ? key : undefined;
}

/**
 * A child workflow's key, from its parent's: a reader of the child proves it as it would the
 * parent's, and one child's key opens nothing else (its id is in the hash).
 */
export function childStreamKey(parentKey: string, childWorkflowId: string): string {
  return hashText("stream-key/child", `${parentKey}\n${childWorkflowId}`);
}

/** The memo a child workflow starts with: its key, when the parent has one. */
export function childStreamMemo(parentMemo: Record<string, unknown> | undefined, childWorkflowId: string): { memo?: Record<string, string> } {
  const parent = streamKeyOf(parentMemo);
  return parent ? { memo: { [STREAM_KEY_MEMO]: childStreamKey(parent, childWorkflowId) } } : {};
}
