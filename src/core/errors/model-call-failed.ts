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
    super(`[AI1003] The model call failed${fields.status ? ` with HTTP ${fields.status}` : ""}: ${fields.detail.replace(/\.$/, "")}. ${whatToCheck(fields.status)}`, fields);
  }
}

/** What the status says to look at: a refusal of the request as sent points at its message, not at the model name. */
function whatToCheck(status: number | undefined): string {
  switch (status) {
    case 401:
    case 403:
      return "Check the API key the worker was given, and that it may use this model.";
    case 404:
      return "Check the model name and base URL the worker was given.";
    case 400:
    case 422:
      return "The provider refused the request as it was sent: its message above says why.";
    default:
      return "The provider kept failing (out, throttling or unreachable): check the base URL the worker was given and the provider's status, or give the agent fallbackModels.";
  }
}
