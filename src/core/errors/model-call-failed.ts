import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface ModelCallFailedFields {
  /** HTTP status when the provider answered, absent for network errors. */
  status?: number;
  detail: string;
}

/** AI1003: the model provider refused the call for a reason retrying cannot fix. */
export class ModelCallFailedError extends DurableAgentsError<ModelCallFailedFields> {
  static readonly code = ErrorCode.ModelCallFailed;
  readonly code = ErrorCode.ModelCallFailed;
  constructor(fields: ModelCallFailedFields) {
    super(
      `[AI1003] The model call failed${fields.status ? ` with HTTP ${fields.status}` : ""}: ${fields.detail}. ` +
        "Check the model name, API key and base URL the worker was given.",
      fields,
    );
  }
}
