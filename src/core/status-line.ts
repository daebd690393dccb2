/**
 * A thread's status line (the workflow's current details, which the Temporal UI shows and
 * the SDK's metadata query reads without a billed action) ends with what readers need to
 * decide whether a billed query is worth it: the seq of the stream log's last entry and
 * how many messages wait in the inbox. The suffix is ours and comes last, so text before it
 * (tool names, which the model chooses) cannot be mistaken for it.
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
