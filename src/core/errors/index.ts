export { ErrorCode, CODE_TABLE, codeInfo, isErrorCode, type CodeInfo } from "./codes.js";
export { DurableAgentsError } from "./base.js";
export { fromFailure, unwrapFailure } from "./from-failure.js";
export * from "./setup.js";
export * from "./deferrals.js";
export * from "./runs.js";
export * from "./threads.js";
export * from "./limits.js";
export * from "./http.js";
