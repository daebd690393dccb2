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
