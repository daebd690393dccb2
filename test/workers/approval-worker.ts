/**
 * A worker for the approval agents (and one that delegates to them as a sub-agent) in its own process, so a test can SIGKILL it while
 * runs are deferred. Env: TEMPORAL_ADDRESS, TASK_QUEUE, MODEL_URL, SECRET.
 */
import { delegatingAgent, payoutAgent } from "../fixtures/approvals.js";
import { env, serveAgents } from "./serve.js";

await serveAgents([payoutAgent, delegatingAgent], { deferral: { secret: env("SECRET") } });
