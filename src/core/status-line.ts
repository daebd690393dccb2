/**
 * A run's or thread's status line: the workflow's current details (`setCurrentDetails`),
 * which the Temporal UI shows and clients read with Temporal's published metadata query
 * (`workflowMetadataQuery`), neither a billed action nor a history event. It ends with what
 * readers need to decide whether a billed query is worth it: the seq of the stream log's
 * last entry and how many messages wait in the inbox; a parked run's, with the deferral it
 * waits on, until when, and whether it takes any payload. The facts are ours and come last,
 * so text before them (tool names, which the model chooses) cannot be mistaken for them.
 *
 * The facts are wire format between workers and clients of different releases
 * (docs/versioning.md): this file is the one place that writes and reads them. Why here and
 * not in a memo, a search attribute, a query or an update: docs/architecture/temporal-mapping.md
 * ("Where a run's facts travel").
 */
export interface StatusLineFacts {
  /** The seq of the stream log's last entry (what a query from an earlier seq would end with). */
  seq: number;
  /** Messages waiting for a turn. */
  queued: number;
}

/** What a reader takes from a status line. */
export interface StatusLine extends Partial<StatusLineFacts> {
  /** The human part. */
  text: string;
  /** A turn or tool runs: the thread is not at rest. */
  active: boolean;
}

export function formatStatusLine(text: string, facts: StatusLineFacts): string {
  return `${text} · stream ${facts.seq}${facts.queued > 0 ? ` · ${facts.queued} queued` : ""}`;
}

const FACTS = / · stream (\d+)(?: · (\d+) queued)?$/;

/** Lines of threads older than the suffix read as text alone (no seq, no queue). */
export function parseStatusLine(line: string): StatusLine {
  const match = FACTS.exec(line);
  const text = match ? line.slice(0, match.index) : line;
  return {
    text,
    active: /^(running|awaiting)\b/.test(text),
    ...(match ? { seq: Number(match[1]), queued: match[2] === undefined ? 0 : Number(match[2]) } : {}),
  };
}

/**
 * A parked run's status line, when its acknowledgment can be read from it whole: the
 * deferral takes any payload (no schema), so the ack is its id and expiry. The caller
 * then needs no billed query to answer `run()`.
 */
export function parkedLine(toolName: string | undefined, deferralId: string, expiresAt: string, hasSchema: boolean): string {
  return `awaiting ${toolName ? `approval of ${toolName}` : "a resume"} (deferral ${deferralId}) until ${expiresAt}${hasSchema ? "" : ANY_PAYLOAD}`;
}

const ANY_PAYLOAD = " · any payload";
// A run's line ends with its stream's position since runs stream; lines before that do not.
const PARKED = /\(deferral (\S+)\) until (\S+?)( · any payload)?(?: · stream \d+)?$/;

/** What a parked run's line says: the deferral it waits on, until when, and whether it takes any payload. */
export function parkedOn(line: string | undefined): { deferralId: string; expiresAt: string; anyPayload: boolean } | undefined {
  const match = line === undefined || !line.startsWith("awaiting ") ? null : PARKED.exec(line);
  return match ? { deferralId: match[1]!, expiresAt: match[2]!, anyPayload: match[3] !== undefined } : undefined;
}

/** The acknowledgment a parked run's line spells out, or undefined (a schema, an older worker, not parked). */
export function ackFromLine(line: string | undefined): { status: "deferred"; deferralId: string; expiresAt: string } | undefined {
  const parked = parkedOn(line);
  return parked?.anyPayload ? { status: "deferred", deferralId: parked.deferralId, expiresAt: parked.expiresAt } : undefined;
}
