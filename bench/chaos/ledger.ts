/**
 * The soak's ledger: a database of its own in the PostgreSQL cluster under Temporal, where
 * the workers record every side effect as it happens (keyed by the call's idempotency key,
 * as the docs tell tool authors to do) and every link a person would be sent, and the
 * driver records every decision it sent and how it came back. The checks at the end read
 * it against what Temporal says happened.
 */
import pg from "pg";

export interface LedgerAddress {
  host: string;
  port: number;
  user: string;
  password: string;
}

const DATABASE = "chaos_ledger";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS notices (
  id BIGSERIAL PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  run_id TEXT NOT NULL,
  tool_call_id TEXT NOT NULL,
  approval_id TEXT,
  token TEXT NOT NULL,
  at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS effect_attempts (
  id BIGSERIAL PRIMARY KEY,
  key TEXT NOT NULL,
  run_id TEXT NOT NULL,
  tool_call_id TEXT NOT NULL,
  tool TEXT NOT NULL,
  pid INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS effects (
  key TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  tool_call_id TEXT NOT NULL,
  tool TEXT NOT NULL,
  amount INTEGER NOT NULL,
  at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS decisions (
  id BIGSERIAL PRIMARY KEY,
  run_id TEXT NOT NULL,
  deferral_id TEXT NOT NULL,
  via TEXT NOT NULL,
  outcome TEXT NOT NULL,
  at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS transcripts (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  messages JSONB NOT NULL
);
`;

/** Creates the ledger's database and tables; resolves to the URL workers connect with. */
export async function createLedger(address: LedgerAddress): Promise<string> {
  const admin = new pg.Client({ ...address, database: "postgres" });
  await admin.connect();
  try {
    const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [DATABASE]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await admin.end();
  }
  const url = `postgres://${encodeURIComponent(address.user)}:${encodeURIComponent(address.password)}@${address.host}:${address.port}/${DATABASE}`;
  const ledger = new pg.Client({ connectionString: url });
  await ledger.connect();
  try {
    await ledger.query(SCHEMA);
  } finally {
    await ledger.end();
  }
  return url;
}

export const openLedger = (url: string, max = 4): pg.Pool => new pg.Pool({ connectionString: url, max });

/** What an approval email or a chat link would carry, recorded once however often its activity runs. */
export interface Notice {
  id: string;
  key: string;
  kind: "approval" | "deferral" | "answer";
  run_id: string;
  tool_call_id: string;
  approval_id: string | null;
  token: string;
}

export async function recordNotice(pool: pg.Pool, notice: Omit<Notice, "id">): Promise<void> {
  await pool.query(
    "INSERT INTO notices (key, kind, run_id, tool_call_id, approval_id, token) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (key) DO NOTHING",
    [notice.key, notice.kind, notice.run_id, notice.tool_call_id, notice.approval_id, notice.token],
  );
}

export async function noticesAfter(pool: pg.Pool, id: string): Promise<Notice[]> {
  const { rows } = await pool.query<Notice>("SELECT * FROM notices WHERE id > $1 ORDER BY id", [id]);
  return rows;
}

/**
 * A side effect done the way the docs tell tool authors to: every attempt is logged, and the
 * effect itself is applied once per idempotency key. Answers whether this attempt applied it.
 */
export async function applyEffect(
  pool: pg.Pool,
  effect: { key: string; runId: string; toolCallId: string; tool: string; amount: number; attempt: number },
): Promise<boolean> {
  await pool.query("INSERT INTO effect_attempts (key, run_id, tool_call_id, tool, pid, attempt) VALUES ($1, $2, $3, $4, $5, $6)", [
    effect.key,
    effect.runId,
    effect.toolCallId,
    effect.tool,
    process.pid,
    effect.attempt,
  ]);
  const applied = await pool.query("INSERT INTO effects (key, run_id, tool_call_id, tool, amount) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (key) DO NOTHING", [
    effect.key,
    effect.runId,
    effect.toolCallId,
    effect.tool,
    effect.amount,
  ]);
  return applied.rowCount === 1;
}

export async function recordDecision(pool: pg.Pool, decision: { runId: string; deferralId: string; via: string; outcome: string }): Promise<void> {
  await pool.query("INSERT INTO decisions (run_id, deferral_id, via, outcome) VALUES ($1, $2, $3, $4)", [decision.runId, decision.deferralId, decision.via, decision.outcome]);
}

export async function recordTranscript(pool: pg.Pool, id: string, kind: "run" | "thread", messages: unknown[]): Promise<void> {
  await pool.query("INSERT INTO transcripts (id, kind, messages) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET messages = EXCLUDED.messages", [id, kind, JSON.stringify(messages)]);
}
