import { ApplicationFailure, ApplicationFailureCategory } from "@temporalio/common";
import { ERROR_BRAND as BRAND, isBranded } from "./brand.js";
import { codeInfo, type ErrorCode } from "./codes.js";

/**
 * Base of every error the SDK raises on purpose. `code` is stable; the remaining
 * fields are typed per subclass and travel across Temporal as the failure's details.
 */
export abstract class DurableAgentsError<F extends object = object> extends Error {
  abstract readonly code: ErrorCode;
  /** The fields the error was built from: plain JSON, sent across the wire as-is. */
  readonly fields: F;

  protected constructor(message: string, fields: F) {
    super(message);
    this.fields = fields;
    Object.defineProperty(this, BRAND, { value: true });
    this.name = new.target.name;
  }

  /** True for any SDK error from any realm (workflow sandbox, worker, client). */
  static isDurableAgentsError(err: unknown): err is DurableAgentsError {
    return isBranded(err);
  }

  /** Realm-safe type guard: `MaxTurnsError.isInstance(err)`. */
  static isInstance<T extends DurableAgentsError>(
    this: abstract new (...args: never[]) => T,
    err: unknown,
  ): err is T {
    const code = (this as unknown as { code?: string }).code;
    return DurableAgentsError.isDurableAgentsError(err) && err.code === code;
  }

  /**
   * The Temporal form: an `ApplicationFailure` whose `type` is the code, retryable and
   * categorised as the code table says (expected refusals are `BENIGN`: logged at debug).
   */
  toFailure(): ApplicationFailure {
    const { retryable, benign } = codeInfo(this.code);
    return ApplicationFailure.create({
      type: this.code,
      message: this.message,
      details: [this.fields],
      nonRetryable: !retryable,
      ...(benign ? { category: ApplicationFailureCategory.BENIGN } : {}),
    });
  }
}
