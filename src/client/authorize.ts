/**
 * Asks an authorize hook and reads its verdict the one way the SDK does: only an exact
 * `true` allows. Anything else (false, a truthy non-boolean, undefined, a thrown error) is
 * a refusal, described as `returned` for the typed error the caller raises.
 */
export async function askAuthorize(ask: () => unknown): Promise<{ allowed: true } | { allowed: false; returned: string }> {
  let verdict: unknown;
  try {
    verdict = await ask();
  } catch (err) {
    return { allowed: false, returned: `an error (${err instanceof Error ? err.message : String(err)})` };
  }
  if (verdict === true) return { allowed: true };
  return { allowed: false, returned: JSON.stringify(verdict) ?? "undefined" };
}
