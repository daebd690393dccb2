/**
 * The soak's randomness, all drawn from its seed so a run can be repeated: a small PRNG for
 * the schedule and the workload, and a hash for decisions that must not depend on the order
 * requests arrive in (a model request's fault is a function of its conversation, turn and
 * attempt, whichever worker sends it and whenever).
 */

/** mulberry32: 32-bit state, good enough to spread faults and delays. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A number in [0, 1) that depends only on `parts` (FNV-1a, then one PRNG step). */
export function draw(...parts: Array<string | number>): number {
  let hash = 0x811c9dc5;
  for (const char of parts.join("\u0000")) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193);
  }
  return prng(hash)();
}

/** An integer in [low, high]. */
export const between = (random: () => number, low: number, high: number): number => low + Math.floor(random() * (high - low + 1));

/** One of `items`. */
export const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
