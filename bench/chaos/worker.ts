/**
 * One of the soak's worker processes (bench/chaos.ts starts two and SIGKILLs them at
 * random): the payout and chat agents on TASK_QUEUE, through the driver's TCP proxy at
 * TEMPORAL_ADDRESS, with the model at MODEL_URL and the ledger at LEDGER_URL.
 */
import { env, serveAgents } from "../../test/workers/serve.js";
import { chatAgent, payoutAgent, useLedger } from "./agents.js";
import { openLedger } from "./ledger.js";

useLedger(openLedger(env("LEDGER_URL")));
await serveAgents([payoutAgent, chatAgent], { deferral: { secret: env("SECRET") } });
process.exit(0);
