// `durable-agents/testing`: a Temporal dev server and a scripted OpenAI-compatible model server.
export * from "./dev-server.js";
export * from "./scripted-model-server.js";
export { testTool } from "./test-tool.js";
