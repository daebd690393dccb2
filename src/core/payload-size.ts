/**
 * Sizes of what travels through Temporal. The server refuses any single payload over 2 MB
 * (its default blob size limit; it warns from 512 KB) and does so by terminating or failing
 * the workflow whose command carries it: no typed error, no retry. So everything the SDK
 * sends is measured here first, against a limit below Temporal's, and refused with AI1016
 * when it is over. Sandbox-safe: no Node APIs, nothing that allocates the encoding.
 */
import { PayloadTooLargeError } from "./errors/limits.js";

/**
 * The most one prompt, message, resume payload, principal, tool result or model answer may
 * weigh, as UTF-8 bytes of its JSON: 1.5 MiB. Temporal's limit is 2 MB per payload; the
 * rest is headroom for what travels beside the value in the same payload (ids, the other
 * fields of an update, a codec's envelope).
 */
export const MAX_PAYLOAD_BYTES = 1_572_864;

/**
 * The most one page of a transcript read (`agents.listMessages()`, a worker's transcript read,
 * `listMessages`) carries, as JSON bytes: 1 MiB. A page holds at least one message, and no
 * message is over `MAX_PAYLOAD_BYTES`, so every page fits one payload.
 */
export const MAX_PAGE_BYTES = 1_048_576;

/** The most messages one transcript page holds, whatever the caller asks for. */
export const MAX_PAGE_MESSAGES = 1000;

/**
 * The most a principal may weigh as JSON: 64 KiB. A principal rides along in every model
 * and tool call's input, so it is held to far less than `MAX_PAYLOAD_BYTES`; it names
 * someone, it does not carry their data.
 */
export const MAX_PRINCIPAL_BYTES = 65_536;

/** What AI1016 suggests for a principal over `MAX_PRINCIPAL_BYTES`. */
export const PRINCIPAL_HINT = "A principal names who acts (an id, roles, a tenant): keep their data elsewhere and look it up by id.";

/**
 * A tool result's default limit, as JSON bytes: 256 KiB, under Temporal's 512 KB warning
 * and more than a model reads usefully in one result (about 64k tokens). A larger result is
 * truncated for the model, with a note saying so (`defineTool({ maxResultBytes })`).
 */
export const DEFAULT_TOOL_RESULT_BYTES = 262_144;

/**
 * The bytes the code unit `c`, followed by `next`, adds to a JSON string. A surrogate pair is
 * one 4-byte character, counted on its first unit (4 means: skip `next`); a lone surrogate is
 * written as a \uXXXX escape.
 */
function unitBytes(c: number, next: number): number {
  if (c < 0x80) {
    if (c === 0x22 || c === 0x5c) return 2;
    if (c >= 0x20) return 1;
    return c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6;
  }
  if (c < 0x800) return 2;
  if (c >= 0xd800 && c <= 0xdbff) return next >= 0xdc00 && next <= 0xdfff ? 4 : 6;
  if (c >= 0xdc00 && c <= 0xdfff) return 6;
  return 3;
}

/** A character JSON.stringify escapes or encodes on more than one byte. */
const NOT_PLAIN = /[^\x20\x21\x23-\x5b\x5d-\x7f]/;

/** UTF-8 bytes of `JSON.stringify(s)`, counting stops soon after passing `stopAfter`. */
function stringBytes(s: string, stopAfter: number): number {
  // Every code unit weighs at least a byte: a string this long is over without a look.
  if (s.length + 2 > stopAfter) return stopAfter + 1;
  // Most strings (ids, English text, JSON arguments) have nothing to escape: one native scan.
  // Every large tool result and transcript is measured, in the workflow sandbox too.
  const first = s.search(NOT_PLAIN);
  if (first === -1) return s.length + 2;
  let bytes = 2 + first;
  for (let i = first; i < s.length; ) {
    const c = s.charCodeAt(i);
    // The characters NOT_PLAIN leaves out, inline: most of a string that needs the loop.
    if (c >= 0x20 && c < 0x80 && c !== 0x22 && c !== 0x5c) {
      bytes += 1;
      i += 1;
      continue;
    }
    const b = unitBytes(c, s.charCodeAt(i + 1));
    bytes += b;
    i += b === 4 ? 2 : 1;
  }
  return bytes;
}

/**
 * UTF-8 bytes of `JSON.stringify(value)`, the one measure of every size check. Iterative
 * and without building the encoding, so hostile nesting cannot overflow the stack and a
 * huge string costs no copy. Counting stops once the total passes `stopAfter` (the result
 * is then some number above it). A value JSON cannot encode (a cycle) measures Infinity.
 */
export function jsonBytes(value: unknown, stopAfter = Number.MAX_SAFE_INTEGER): number {
  type Step = { kind: "visit"; value: unknown } | { kind: "leave"; value: object };
  const ancestors = new Set<object>();
  const stack: Step[] = [{ kind: "visit", value }];
  let total = 0;
  while (stack.length > 0 && total <= stopAfter) {
    const step = stack.pop()!;
    if (step.kind === "leave") {
      ancestors.delete(step.value);
      continue;
    }
    let v = step.value;
    if (v !== null && typeof v === "object" && typeof (v as { toJSON?: unknown }).toJSON === "function") v = (v as { toJSON(): unknown }).toJSON();
    if (v === null || v === undefined || typeof v === "function" || typeof v === "symbol") total += 4;
    else if (typeof v === "boolean") total += v ? 4 : 5;
    else if (typeof v === "number") total += Number.isFinite(v) ? String(v).length : 4;
    else if (typeof v === "bigint") total += String(v).length;
    else if (typeof v === "string") total += stringBytes(v, stopAfter - total);
    else {
      const o = v as object;
      if (ancestors.has(o)) return Infinity;
      ancestors.add(o);
      stack.push({ kind: "leave", value: o });
      total += 2;
      if (Array.isArray(o)) {
        total += Math.max(0, o.length - 1);
        for (let i = o.length - 1; i >= 0; i--) stack.push({ kind: "visit", value: o[i] });
      } else {
        let members = 0;
        for (const [key, inner] of Object.entries(o)) {
          // JSON.stringify leaves these members out.
          if (inner === undefined || typeof inner === "function" || typeof inner === "symbol") continue;
          total += stringBytes(key, stopAfter - total) + 1 + (members > 0 ? 1 : 0);
          members += 1;
          stack.push({ kind: "visit", value: inner });
        }
      }
    }
  }
  return total;
}

/** AI1016 when `value` weighs more than `limitBytes` as JSON; undefined when it fits. */
export function payloadTooLarge(
  value: unknown,
  what: string,
  options: { limitBytes?: number; hint?: string } = {},
): PayloadTooLargeError | undefined {
  const limitBytes = options.limitBytes ?? MAX_PAYLOAD_BYTES;
  const bytes = jsonBytes(value, limitBytes);
  if (bytes <= limitBytes) return undefined;
  return new PayloadTooLargeError({ what, bytes, limitBytes, ...(options.hint ? { hint: options.hint } : {}) });
}

/** Throws AI1016 when `value` weighs more than the limit as JSON (see `payloadTooLarge`). */
export function assertPayloadFits(value: unknown, what: string, options: { limitBytes?: number; hint?: string } = {}): void {
  const refused = payloadTooLarge(value, what, options);
  if (refused) throw refused;
}

/**
 * The longest prefix of `s` whose JSON string body (without the quotes) weighs at most
 * `maxBytes`, never splitting a surrogate pair.
 */
export function jsonStringPrefix(s: string, maxBytes: number): string {
  let bytes = 0;
  let i = 0;
  while (i < s.length) {
    const b = unitBytes(s.charCodeAt(i), s.charCodeAt(i + 1));
    if (bytes + b > maxBytes) break;
    bytes += b;
    i += b === 4 ? 2 : 1;
  }
  return s.slice(0, i);
}

/**
 * The longest run of `items` from `from`, at most `limit` of them, whose JSON weighs at most
 * `maxBytes` together; always at least one item when there is one, since a single item is
 * bounded by the checks that let it in. What transcript pages are cut by.
 */
export function pageOf<T>(items: readonly T[], from: number, limit: number, maxBytes = MAX_PAGE_BYTES): T[] {
  const page: T[] = [];
  let bytes = 2;
  for (let i = from; i < items.length && page.length < limit; i++) {
    const size = jsonBytes(items[i], maxBytes) + (page.length > 0 ? 1 : 0);
    if (page.length > 0 && bytes + size > maxBytes) break;
    bytes += size;
    page.push(items[i]!);
  }
  return page;
}

/** The newest items whose JSON weighs at most `maxBytes` together, at most `limit` of them, oldest first. */
export function tailOf<T>(items: readonly T[], limit: number, maxBytes: number): T[] {
  let bytes = 2;
  let start = items.length;
  while (start > 0 && items.length - start < limit) {
    const size = jsonBytes(items[start - 1], maxBytes) + 1;
    if (bytes + size > maxBytes) break;
    bytes += size;
    start -= 1;
  }
  return items.slice(start);
}
