/**
 * A fingerprint of a deferral's step state: two FNV-1a 32-bit hashes over its JSON,
 * so the workflow (no Node crypto in the sandbox) and the client compute the same value.
 * It is a compare-and-swap stamp, not a security measure.
 */
export function fingerprintOf(value: unknown): string {
  const text = JSON.stringify(value) ?? "";
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x5bd1e995) >>> 0;
  }
  return a.toString(16).padStart(8, "0") + b.toString(16).padStart(8, "0");
}
