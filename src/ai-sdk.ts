// `durable-agents/ai-sdk`: any AI SDK provider as a worker's model. An entry of its own
// because its types come from the AI SDK (`ai`, an optional peer): `durable-agents/worker`
// must type-check, `skipLibCheck` off, where `ai` is not installed.
export { aiSdkModel, type AiSdkLanguageModel } from "./model/ai-sdk.js";
