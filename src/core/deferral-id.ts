/**
 * Deferral ids are `dfr:<seq>:<runId>`: derived from the run and how many deferrals it
 * made before, so a tool handler knows the id before it defers, and resume can find the
 * run from the id alone. Sandbox-safe.
 */
export function deferralIdOf(runId: string, seq: number): string {
  return `dfr:${seq}:${runId}`;
}

export function parseDeferralId(deferralId: unknown): { runId: string; seq: number } | undefined {
  if (typeof deferralId !== "string") return undefined;
  const match = /^dfr:(\d+):(.+)$/s.exec(deferralId);
  if (!match) return undefined;
  return { seq: Number(match[1]), runId: match[2]! };
}
