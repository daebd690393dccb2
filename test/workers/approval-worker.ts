/**
 * A worker for the approval agents in its own process, so a test can SIGKILL it while
 * runs are deferred. Env: TEMPORAL_ADDRESS, TASK_QUEUE, MODEL_URL, SECRET.
 */
import { payoutAgent } from "../fixtures/approvals.js";
import { env, serveAgents } from "./serve.js";

await serveAgents([payoutAgent], { deferral: { secret: env("SECRET") } });
