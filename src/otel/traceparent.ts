import { isSpanContextValid, type SpanContext } from "@opentelemetry/api";

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A span context as a W3C `traceparent` (version 00), the form workflow state keeps it in. */
export function toTraceparent(context: SpanContext): string {
  return `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 0xff).toString(16).padStart(2, "0")}`;
}

/** The remote span context a `traceparent` names; undefined for anything malformed (state is never trusted). */
export function fromTraceparent(value: unknown): SpanContext | undefined {
  if (typeof value !== "string") return undefined;
  const match = TRACEPARENT.exec(value);
  if (!match) return undefined;
  const context: SpanContext = { traceId: match[1]!, spanId: match[2]!, traceFlags: parseInt(match[3]!, 16), isRemote: true };
  return isSpanContextValid(context) ? context : undefined;
}
