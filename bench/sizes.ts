/**
 * `npm run bench -- sizes`: what measuring a payload costs. Every prompt, tool result, model
 * answer and transcript page is measured with `jsonBytes` before it travels (in the workflow
 * sandbox too), so its speed is paid on every turn. The baseline in the same run is what the
 * sandbox cannot do: `Buffer.byteLength(JSON.stringify(value))`. Fields: per case, `ms` per
 * measurement and `vsEncode` (ours ÷ encoding).
 */
import { jsonBytes } from "../src/index.js";
import { progress } from "./lib.js";

const ROUNDS = Number(process.env.SIZES_ROUNDS ?? 40);

const CASES: Record<string, unknown> = {
  // A run's transcript of 40 turns with 64 KB plain-text tool results.
  transcript: Array.from({ length: 40 }, (_, i) => ({ role: "tool", tool_call_id: `call_${i}_0`, content: `page ${i}: ${"x".repeat(65_536)}` })),
  // A tool result of JSON text: quotes and newlines to escape.
  jsonResult: JSON.stringify(Array.from({ length: 5_000 }, (_, i) => ({ id: i, name: `item ${i}`, note: "line\nbreak" })), null, 2),
  // Text that is not ASCII: 2- and 3-byte characters.
  accented: "façade naïve 日本語 ".repeat(50_000),
};

function timed(measure: () => number): { ms: number; bytes: number } {
  let bytes = measure();
  const started = performance.now();
  for (let i = 0; i < ROUNDS; i++) bytes = measure();
  return { ms: Number(((performance.now() - started) / ROUNDS).toFixed(3)), bytes };
}

export async function main(): Promise<Record<string, unknown>> {
  const result: Record<string, unknown> = { bench: "sizes", rounds: ROUNDS };
  for (const [name, value] of Object.entries(CASES)) {
    const ours = timed(() => jsonBytes(value));
    const encode = timed(() => Buffer.byteLength(JSON.stringify(value), "utf8"));
    if (ours.bytes !== encode.bytes) throw new Error(`${name}: jsonBytes says ${ours.bytes}, the encoding is ${encode.bytes}`);
    result[name] = { bytes: ours.bytes, ms: ours.ms, encodeMs: encode.ms, vsEncode: Number((ours.ms / encode.ms).toFixed(2)) };
    progress(`${name}: ${ours.ms} ms against ${encode.ms} ms to encode`);
  }
  return result;
}
