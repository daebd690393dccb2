import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type NotPlainJsonFields = { what: "payload" | "meta"; path: string; problem: string };

/** RC5042: A resume payload or deferral meta is not plain JSON. */
export class NotPlainJsonError extends DurableAgentsError<NotPlainJsonFields> {
  static readonly code = ErrorCode.NotPlainJson;
  readonly code = ErrorCode.NotPlainJson;
  constructor(f: NotPlainJsonFields) {
    super(
      `[RC5042] The ${f.what} is not plain JSON at ${f.path}: ${f.problem}. Send only objects, arrays, strings, finite numbers, booleans and null.`,
      f,
    );
  }
}
