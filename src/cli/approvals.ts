import { InvalidDefinitionError } from "../core/errors/setup.js";
import { MAX_HISTORY_PAGE } from "../client/approval-history.js";
import { InvalidArgumentError, Option, type Command } from "commander";
import { responseDecisions, type Decision } from "../core/approval.js";
import type { PermissionGrant } from "../core/approval-permissions.js";
import { DEFERRAL_STATUSES, type DeferralStatus } from "../core/deferral-record.js";
import type { JsonObject, JsonValue } from "../core/json.js";
import type { ApprovalSummary } from "../client/approval-inbox.js";
import type { ApprovalTrailEntry } from "../core/approval-trail.js";
import type { ApprovalRequestContext, ApprovalRequestContextMessage } from "../core/approval-context.js";
import { connectClient, requireDeferralSecret, withAgents, type ConnectionFlags } from "./connect.js";
import { positiveInt, repeated } from "./flags.js";
import { age, output, table } from "./output.js";
import { oneLine, printableJson } from "../core/printable.js";
import { FlagError, jsonFlag } from "./render.js";
import type { Globals } from "./flags.js";

/**
 * Why the agent asks, one escaped line per message (a message's line breaks and controls as
 * `\uXXXX`, so no model, tool or user text can forge a line or drive the terminal).
 */
function contextLines(context: ApprovalRequestContext | undefined): string[] {
  if (!context) return [];
  const line = (label: string, m: ApprovalRequestContextMessage) => `  ${label.padEnd(9)}${m.toolName ? `${oneLine(m.toolName)}: ` : ""}${oneLine(m.text)}${m.truncated ? "… (cut)" : ""}`;
  return [
    "why:",
    ...(context.request ? [line("asked", context.request)] : []),
    ...context.toolResults.map((m) => line("tool", m)),
    ...context.messages.map((m) => line("agent", m)),
  ];
}

/** The inbox's largest page (`approvals.list` refuses more). */
const MAX_LIMIT = 1000;

/**
 * `durable-agents approvals …`: the one inbox of requests waiting on a person (gated tools'
 * calls, and `ctx.defer()` deferrals), in runs and threads: list, show, history, approve, reject.
 */
export function approvalCommands(program: Command, globals: () => Globals & ConnectionFlags): void {
  const approvals = program.command("approvals").description("Requests waiting on a person, in runs and threads: list, show, history, approve, reject");

  approvals
    .command("list")
    .description("Waiting requests, newest first (Temporal visibility, which trails writes by a moment)")
    .option("--agent <id>", "only this agent's")
    .addOption(new Option("--status <status>", "which requests").choices(DEFERRAL_STATUSES).default("deferred"))
    .option("--requires <what>", "only requests whose meta.requires names this (a role, a permission)")
    .option("--limit <n>", `rows to look at for this page (at most ${MAX_LIMIT})`, pageSize, 50)
    .option("--cursor <cursor>", "the next page, as the previous one printed it")
    .action(async (flags: { agent?: string; status: DeferralStatus; requires?: string; limit: number; cursor?: string }) => {
      const g = globals();
      await withAgents(g, async (agents) => {
        const page = await agents.approvals.list({
          status: flags.status,
          limit: flags.limit,
          ...(flags.agent ? { agentId: flags.agent } : {}),
          ...(flags.requires ? { requires: flags.requires } : {}),
          ...(flags.cursor ? { cursor: flags.cursor } : {}),
        });
        output(g).result(page, () => [
          ...table(
            ["APPROVAL", "KIND", "STATUS", "AGENT", "CALLS", "REQUIRES", "AGE", "EXPIRES"],
            page.approvals.map((a) => [a.approvalId, a.kind, a.status, a.agentId ?? "-", a.calls.map((c) => c.toolName).join(", "), requiresOf(a.meta).join(", ") || "-", age(a.deferredAt), age(a.expiresAt)]),
          ),
          ...(page.cursor ? [`more: --cursor ${oneLine(page.cursor)}`] : []),
        ]);
      });
    });

  approvals
    .command("show <approvalId>")
    .description("One request: its calls with their arguments, meta, expiry, who the run acts for, and why the agent asks (never a token)")
    .action(async (approvalId: string) => {
      const g = globals();
      await withAgents(g, async (agents) => {
        const a = await agents.approvals.get({ approvalId });
        output(g).result(a, () => [
          `approval   ${oneLine(a.approvalId)} (${a.kind})`,
          `run        ${oneLine(a.runId)}`,
          `status     ${a.status}`,
          `agent      ${oneLine(a.agentId ?? "-")}`,
          `deferred   ${a.deferredAt} (${age(a.deferredAt)} ago)`,
          `expires    ${a.expiresAt} (${age(a.expiresAt)})`,
          ...(a.principal ? [`for        ${JSON.stringify(a.principal)}`] : []),
          `meta       ${JSON.stringify(a.meta)}`,
          ...(a.callFingerprint ? [`shown      ${oneLine(a.callFingerprint)} (pass as --shown to decide on exactly these calls)`] : []),
          `calls (${a.calls.length}):`,
          ...a.calls.flatMap((c) => [
            `  ${oneLine(c.toolCallId)}  ${oneLine(c.toolName)}(${oneLine(c.arguments)})`,
            ...(c.resultSchema ? [`    respond with ${printableJson(JSON.stringify(c.resultSchema))}`] : []),
          ]),
          ...contextLines(a.context),
        ]);
      });
    });

  approvals
    .command("history [approvalId]")
    .description(
      "The request's life, oldest first: asked, reminded, escalated, each call's decision (who, what it changed), expired or denied; --run for every request of a run or thread; --decided-by / --acting-for with --since for a principal's",
    )
    .option("--run <runId>", "every request of this run (or thread: its workflow id), oldest first")
    .option("--thread <threadId>", "every request of this thread, oldest first (as --run with its id)")
    .option("--decided-by <principalId>", "the requests this principal decided, denied or revoked a grant of, since --since")
    .option("--acting-for <principalId>", "the requests made on behalf of this principal, since --since (with --decided-by: both)")
    .option("--since <date>", "only the entries at or after this instant (required with --decided-by or --acting-for)")
    .option("--cursor <cursor>", "with --decided-by / --acting-for: the next page, as the previous one printed it")
    .option("--limit <n>", `with --decided-by / --acting-for: runs and threads to read for this page (at most ${MAX_HISTORY_PAGE}, default 20)`, historyPageSize)
    .action(async (approvalId: string | undefined, flags: { run?: string; thread?: string; decidedBy?: string; actingFor?: string; since?: string; cursor?: string; limit?: number }) => {
      const g = globals();
      await withAgents(g, async (agents) => {
        if (flags.run !== undefined && flags.thread !== undefined) throw new InvalidDefinitionError({ subject: "approvals history", problem: "give --run or --thread, not both" });
        const byPrincipal = flags.decidedBy !== undefined || flags.actingFor !== undefined;
        if (byPrincipal) {
          if (flags.run !== undefined || flags.thread !== undefined || approvalId !== undefined) throw new InvalidDefinitionError({ subject: "approvals history", problem: "give an approval id, --run <runId>, --thread <threadId>, or --decided-by / --acting-for (one of them)" });
          const page = await agents.approvals.history({
            since: flags.since as string,
            ...(flags.decidedBy !== undefined ? { decidedBy: flags.decidedBy } : {}),
            ...(flags.actingFor !== undefined ? { actingFor: flags.actingFor } : {}),
            ...(flags.cursor !== undefined ? { cursor: flags.cursor } : {}),
            ...(flags.limit !== undefined ? { limit: flags.limit } : {}),
          });
          output(g).result(page, () => [
            ...page.requests.flatMap((history) => [`approval   ${oneLine(history.approvalId)} (${history.status}) in ${oneLine(history.runId)}`, ...history.entries.map(trailLine)]),
            ...(page.cursor ? [`next page  --cursor ${page.cursor}`] : []),
          ]);
          return;
        }
        if (flags.cursor !== undefined || flags.limit !== undefined) throw new InvalidDefinitionError({ subject: "approvals history", problem: "--cursor and --limit go with --decided-by or --acting-for" });
        if (flags.run !== undefined || flags.thread !== undefined || approvalId === undefined) {
          if ((flags.run === undefined && flags.thread === undefined) || approvalId !== undefined) throw new InvalidDefinitionError({ subject: "approvals history", problem: "give an approval id, or --run <runId> / --thread <threadId> (not both)" });
          const since = flags.since !== undefined ? { since: flags.since } : {};
          const run = await agents.approvals.history(flags.thread !== undefined ? { threadId: flags.thread, ...since } : { runId: flags.run!, ...since });
          output(g).result(run, () => run.requests.flatMap((history) => [`approval   ${oneLine(history.approvalId)} (${history.status})`, ...history.entries.map(trailLine)]));
          return;
        }
        const history = await agents.approvals.history({ approvalId });
        output(g).result(history, () => [`approval   ${oneLine(history.approvalId)} (${history.status})`, ...history.entries.map(trailLine)]);
      });
    });

  approvals
    .command("approve <approvalId>")
    .description("Approve the request's calls: every one, or those --call names (the others wait for a later decision, or are rejected with --reason); the secret comes from DEFERRAL_SECRET")
    .option("--call <toolCallId>", "approve this call (repeatable); the request's calls no --call names wait for a later decision (or are rejected with --reason)", repeated(String))
    .option("--edit <toolCallId=json>", "run this call with this input instead of the model's (repeatable), or one JSON object of inputs by call id", repeated(String))
    .option("--note <text>", "a note kept on the record with each approved call")
    .option("--reason <text>", "reject the calls --call leaves out, with this reason as the model will read it (without it they wait)")
    .option("--shown <fingerprint>", "the fingerprint `show` printed: refused (RC5058) if the calls changed since")
    .option("--as <principalId>", "who decides (recorded as resumedBy)")
    .option("--grant <json>", 'a standing permission granted with each approved call, e.g. \'{"until":"8h","match":{…}}\' (docs/approvals.md, "Standing permissions")')
    .action(async (approvalId: string, flags: { call?: string[]; edit?: string[]; note?: string; reason?: string; shown?: string; as?: string; grant?: string }) => {
      const grant = flags.grant !== undefined ? jsonFlag(flags.grant, "--grant") : undefined;
      if (grant !== undefined && (typeof grant !== "object" || grant === null || Array.isArray(grant))) throw new FlagError("--grant must be a JSON object { tool?, until?, match?, for? }");
      const edits = editsOf(flags.edit ?? []);
      const named = flags.call ? new Set(flags.call) : undefined;
      const stray = named && [...edits.keys()].find((id) => !named.has(id));
      if (stray !== undefined) throw new FlagError(`--edit names the call ${JSON.stringify(stray)}, which no --call approves`);
      if (!named && flags.reason !== undefined) throw new FlagError("--reason is for the calls --call leaves out; without --call every call is approved (use `approvals reject` to reject them)");
      await decide(globals(), approvalId, flags, (calls) => {
        // Without --call: every listed call, and any edited one (a call the request does not list is the run's to refuse).
        const approved = named ? [...named] : [...new Set([...calls, ...edits.keys()])];
        // Decided one at a time: the calls --call leaves out wait, unless a reason rejects them.
        const rejected = flags.reason === undefined ? [] : calls.filter((id) => !approved.includes(id));
        return [
          ...approved.map((toolCallId): Decision => ({ toolCallId, approved: true, ...(edits.has(toolCallId) ? { input: edits.get(toolCallId)! } : {}), ...(flags.note !== undefined ? { note: flags.note } : {}), ...(grant ? { grant: grant as PermissionGrant } : {}) })),
          ...rejected.map((toolCallId): Decision => ({ toolCallId, approved: false, ...(flags.reason !== undefined ? { reason: flags.reason } : {}) })),
        ];
      });
    });

  approvals
    .command("respond <approvalId>")
    .description("Answer in the tools' place: each call --result names gets that result and its tool never runs; the request's other calls wait for a later decision (or are rejected with --reason). The secret comes from DEFERRAL_SECRET")
    .requiredOption("--result <toolCallId=json>", "this call's result, as JSON (repeatable), or one JSON object of results by call id; checked against the tool's resultSchema", repeated(String))
    .option("--note <text>", "a note kept on the record with each response")
    .option("--reason <text>", "reject the calls no --result names, with this reason as the model will read it (without it they wait)")
    .option("--shown <fingerprint>", "the fingerprint `show` printed: refused (RC5058) if the calls changed since")
    .option("--as <principalId>", "who decides (recorded as resumedBy)")
    .action(async (approvalId: string, flags: { result: string[]; note?: string; reason?: string; shown?: string; as?: string }) => {
      const results = byCall(flags.result, "--result", "null, which is no result", (value) => value !== null);
      await decide(globals(), approvalId, flags, (calls) =>
        // Without a reason the calls it leaves out wait for a later decision; with one they are rejected.
        responseDecisions(flags.reason === undefined ? [] : calls, { results: Object.fromEntries(results) as Record<string, JsonValue>, ...(flags.note !== undefined ? { note: flags.note } : {}), ...(flags.reason !== undefined ? { reason: flags.reason } : {}) }),
      );
    });

  approvals
    .command("reject <approvalId>")
    .description("Reject the request's calls: every one, or those --call names (the others wait for a later decision); no handler runs, and the model reads the reason; the secret comes from DEFERRAL_SECRET")
    .option("--call <toolCallId>", "reject this call (repeatable); the request's calls no --call names wait for a later decision", repeated(String))
    .option("--reason <text>", "why, as the model will read it")
    .option("--shown <fingerprint>", "the fingerprint `show` printed: refused (RC5058) if the calls changed since")
    .option("--as <principalId>", "who decides (recorded as resumedBy)")
    .action(async (approvalId: string, flags: { call?: string[]; reason?: string; shown?: string; as?: string }) => {
      await decide(globals(), approvalId, flags, (calls) => (flags.call ?? calls).map((toolCallId) => ({ toolCallId, approved: false, ...(flags.reason !== undefined ? { reason: flags.reason } : {}) })));
    });
}

/**
 * Decides a request with one decision per call (`decisionsFor` gets the ids it lists), as
 * the inbox does: the client mints the request's token with DEFERRAL_SECRET. A run answers
 * once it settles again; a thread at once (the turn goes on there).
 */
/** One entry of a request's trail as a line; whatever a person or the model wrote is made printable. */
function trailLine(entry: ApprovalTrailEntry): string {
  const at = entry.at ?? "-".padEnd(24);
  switch (entry.type) {
    case "asked":
      return `${at}  asked      ${entry.calls.map((c) => `${oneLine(c.toolName)}(${oneLine(c.arguments)})`).join(", ")}${entry.requires ? ` requires ${oneLine(entry.requires.join(", "))}` : ""}${entry.principal ? ` for ${oneLine(entry.principal.id)}` : ""}`;
    case "reminded":
      return `${at}  reminded   #${entry.reminder}`;
    case "escalated":
      return `${at}  escalated  ${oneLine(entry.from.join(", ") || "-")} -> ${oneLine(entry.to.join(", "))}`;
    case "decided": {
      const what = entry.decision === "responded" ? ` with ${printableJson(JSON.stringify(entry.response ?? null))}` : entry.changes ? ` changed ${entry.changes.map((c) => `${oneLine(c.path)}: ${printableJson(JSON.stringify(c.from ?? null))} -> ${printableJson(JSON.stringify(c.to ?? null))}`).join("; ")}` : "";
      const words = entry.reason !== undefined ? ` reason: ${oneLine(entry.reason)}` : entry.note !== undefined ? ` note: ${oneLine(entry.note)}` : "";
      const granted = entry.grant ? ` granted ${oneLine(entry.grant.permissionId)}${entry.grant.until !== undefined ? ` until ${oneLine(entry.grant.until)}` : ""}${entry.grant.for === "principal" ? " for the principal" : ""}${entry.grant.match ? " matching a schema" : ""}` : "";
      return `${at}  ${entry.decision.padEnd(9)}  ${oneLine(entry.toolCallId)} ${oneLine(entry.toolName)} by ${oneLine(entry.by?.id ?? "-")}${what}${words}${granted}`;
    }
    case "revoked":
      return `${at}  revoked    ${oneLine(entry.permissionId)}${entry.by ? ` by ${oneLine(entry.by.id)}` : ""}`;
    case "expired":
      return `${at}  expired`;
    case "denied":
      return `${at}  denied     ${entry.by ? `by ${oneLine(entry.by.id)} ` : ""}${oneLine(entry.reason)}`;
  }
}

async function decide(g: Globals & ConnectionFlags, approvalId: string, flags: { shown?: string; as?: string }, decisionsFor: (calls: string[]) => Decision[]): Promise<void> {
  requireDeferralSecret(g.io);
  const { agents, close } = await connectClient(g);
  const out = output(g);
  let done: () => void = () => undefined;
  try {
    const request = await agents.approvals.get({ approvalId });
    const decisions = decisionsFor(request.calls.map((c) => c.toolCallId));
    done = out.progress("deciding, waiting for the run's next settled state…");
    const decided = await agents.approvals.decide({ approvalId, decisions, ...(flags.as ? { principal: { id: flags.as } } : {}), ...(flags.shown ? { shown: flags.shown } : {}) });
    done();
    out.result({ ...decided, decisions }, () => [
      `${decided.status}: ${oneLine(decided.deferralId)}${decided.status === "duplicate" ? " (decided before: these decisions were not applied)" : ""}`,
      ...decisions.map((d) => `  ${decisionLine(d, request)}`),
      `outcome: ${JSON.stringify(decided.outcome)}`,
    ]);
  } finally {
    done();
    await close();
  }
}

function decisionLine(d: Decision, request: ApprovalSummary): string {
  const tool = request.calls.find((c) => c.toolCallId === d.toolCallId)?.toolName ?? "?";
  const call = `${oneLine(d.toolCallId)} ${oneLine(tool)}`;
  if ("respond" in d) return `responded ${call} → ${printableJson(JSON.stringify(d.respond))}`;
  if (!d.approved) return `rejected  ${call}${d.reason !== undefined ? `: ${oneLine(d.reason)}` : ""}`;
  const granted = d.grant ? ` granting ${printableJson(JSON.stringify(d.grant))}` : "";
  return d.input ? `edited    ${call} → ${JSON.stringify(d.input)}${granted}` : `approved  ${call}${granted}`;
}

/**
 * The `--edit` values as inputs by call id: `<toolCallId>=<json object>`, or a JSON object
 * `{ "<toolCallId>": { …input } }`. Checked before anything connects: a value that is not
 * JSON, an input that is not an object, or a call edited twice is a usage mistake.
 */
function editsOf(values: string[]): Map<string, JsonObject> {
  return byCall(values, "--edit", "an input that is not a JSON object", (value) => typeof value === "object" && value !== null && !Array.isArray(value)) as Map<string, JsonObject>;
}

/**
 * Values of a per-call flag (`--edit`, `--result`) by call id: `<toolCallId>=<json>`, or one
 * JSON object of them by call id. A value that is not JSON, one `fits` refuses (`what` says
 * why), or a call named twice is a usage mistake, found before anything connects.
 */
function byCall(values: string[], flag: string, what: string, fits: (value: unknown) => boolean): Map<string, unknown> {
  const found = new Map<string, unknown>();
  const shape = `${flag} takes <toolCallId>=<json${flag === "--edit" ? " object" : ""}>, or a JSON object of ${flag === "--edit" ? "inputs" : "results"} by call id`;
  const add = (toolCallId: string, value: unknown) => {
    if (!fits(value)) throw new FlagError(`${flag} gives the call ${JSON.stringify(toolCallId)} ${what}`);
    if (found.has(toolCallId)) throw new FlagError(`${flag} names the call ${JSON.stringify(toolCallId)} twice`);
    found.set(toolCallId, value);
  };
  for (const value of values) {
    if (value.trimStart().startsWith("{")) {
      const all = jsonFlag(value, flag);
      if (typeof all !== "object" || all === null || Array.isArray(all)) throw new FlagError(shape);
      for (const [toolCallId, v] of Object.entries(all)) add(toolCallId, v);
      continue;
    }
    const at = value.indexOf("=");
    if (at < 1) throw new FlagError(shape);
    add(value.slice(0, at), jsonFlag(value.slice(at + 1), flag));
  }
  return found;
}

/** The roles or permissions a request's meta says it requires. */
function requiresOf(meta: JsonObject): string[] {
  return Array.isArray(meta.requires) ? meta.requires.filter((r): r is string => typeof r === "string") : [];
}

/** `--limit` of `history --decided-by / --acting-for`: runs and threads a page reads (1 to `MAX_HISTORY_PAGE`). */
function historyPageSize(value: string): number {
  const n = positiveInt(value);
  if (n > MAX_HISTORY_PAGE) throw new InvalidArgumentError(`Expected at most ${MAX_HISTORY_PAGE}.`);
  return n;
}

/** `--limit`: a page the inbox takes (1 to 1000). */
function pageSize(value: string): number {
  const n = positiveInt(value);
  if (n > MAX_LIMIT) throw new InvalidArgumentError(`Expected at most ${MAX_LIMIT}.`);
  return n;
}
