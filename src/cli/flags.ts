/**
 * Parsers of flag values, given to commander (`.argParser`): a value they refuse is a usage
 * mistake commander prints with the flag's name and the command's help, exit code 2, before
 * the command connects to anything.
 */
import { InvalidArgumentError } from "commander";
import { parseDuration } from "../core/duration.js";
import { originOf, parseHost } from "../mcp/host-names.js";
import type { CliIo } from "./io.js";

/** Options every command reads, and where it reads its environment and writes. */
export interface Globals {
  json: boolean;
  io: CliIo;
}

/** A whole number of at least 1. */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError("Expected a positive whole number.");
  return n;
}

/** A duration as the SDK's options take it (`500ms`, `2s`, `1m`; a bare number is milliseconds), in ms, at least 1. */
export function duration(value: string): number {
  const ms = parseDuration(value.trim());
  if (!Number.isFinite(ms) || ms < 1) throw new InvalidArgumentError('Expected a duration, e.g. "500ms", "2s" or "1m".');
  return ms;
}

/** A TCP port, 0 (any free one) to 65535. */
export function portNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError("Expected a port number (0 to 65535).");
  return n;
}

// ISO 8601 as people write it: a date, optionally a time, optionally a zone (local time without one).
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/** An ISO time (`2026-12-01T00:00:00Z`, `2026-12-01`), given on in UTC. `Date` alone would also read "1" or "May 5". */
export function instant(value: string): string {
  const at = new Date(value);
  if (!ISO_TIME.test(value.trim()) || Number.isNaN(at.getTime())) throw new InvalidArgumentError("Expected an ISO time, e.g. 2026-12-01T00:00:00Z.");
  return at.toISOString();
}

/** An http(s) URL. */
export function httpUrl(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) throw new InvalidArgumentError("Expected an http:// or https:// URL.");
  return value;
}

/** A host name without scheme or port (`mcp.example.com`). */
export function hostName(value: string): string {
  const parsed = parseHost(value);
  if (!parsed || parsed.hasPort) throw new InvalidArgumentError('Expected a host name without scheme or port, e.g. "mcp.example.com".');
  return parsed.hostname;
}

/** A browser origin (`https://app.example.com`). */
export function origin(value: string): string {
  const parsed = originOf(value);
  if (!parsed) throw new InvalidArgumentError('Expected an origin (scheme://host[:port]), e.g. "https://app.example.com".');
  return parsed;
}

/** A flag that may be given several times, each value checked by `parse`. */
export function repeated<T>(parse: (value: string) => T): (value: string, previous: T[] | undefined) => T[] {
  return (value, previous) => [...(previous ?? []), parse(value)];
}
