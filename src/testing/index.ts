/**
 * `durable-agents/testing`: a Temporal dev server, a scripted OpenAI-compatible model server
 * (whose replies a test can hold and release), `testTool` to run a tool's handler outside
 * any run, and `startRedis` for a throwaway Redis behind `durable-agents/redis`.
 *
 * @example
 * ```ts
 * import { startScriptedModelServer, startTemporal } from "durable-agents/testing";
 *
 * const temporal = await startTemporal();
 * const model = await startScriptedModelServer();
 * const hold = model.hold();
 * model.script("run-1", [{ hold, text: "Done." }]);
 * // … start a run, then:
 * await hold.reached;
 * hold.release();
 * ```
 *
 * @packageDocumentation
 * @module durable-agents/testing
 */
export * from "./dev-server.js";
export * from "./scripted-model-server.js";
export { testTool } from "./test-tool.js";
export { startRedis, RedisUnavailableError, type RedisServerHandle, type RedisServerOptions } from "./redis-server.js";
