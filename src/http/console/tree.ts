import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { DurableAgentsError } from "../../core/errors/base.js";
import { oneLine, printableJson } from "../../core/printable.js";
import type { ConsoleDetail, ConsoleStatus, DecisionEdit, FailureView, TimelineEntry } from "./history.js";

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;
type SubAgentEntry = Extract<TimelineEntry, { type: "sub-agent" }>;

/** A sub-agent's run, and the sub-agents it called in turn. */
export interface SubAgentNode {
  id: string;
  agentId?: string;
  /** The caller's tool call that started it. */
  toolCallId?: string;
  status: ConsoleStatus;
  failure?: FailureView;
  children: SubAgentNode[];
  /** Its own sub-agents were not read here (too deep or too many): its page shows them. */
  unread?: boolean;
}

/** How deep and how wide the tree is read for one page: each node is one more history read (free, but not instant). */
export const TREE_DEPTH = 3;
export const TREE_NODES = 40;

/**
 * The sub-agents of a run or thread as a tree, read from their own histories (free reads,
 * like the page's): each child's status is its own history's, its children are read in turn,
 * at most TREE_DEPTH levels and TREE_NODES runs; deeper ones are left to their own pages.
 */
export async function readSubAgentTree(detail: ConsoleDetail, read: (runId: string) => Promise<ConsoleDetail>): Promise<SubAgentNode[]> {
  let budget = TREE_NODES;
  const walk = async (entries: SubAgentEntry[], depth: number): Promise<SubAgentNode[]> => {
    const nodes: SubAgentNode[] = [];
    for (const e of entries) {
      const node: SubAgentNode = { id: e.childId, ...(e.agentId ? { agentId: e.agentId } : {}), ...(e.toolCallId ? { toolCallId: e.toolCallId } : {}), status: e.status, ...(e.failure ? { failure: e.failure } : {}), children: [] };
      nodes.push(node);
      if (depth >= TREE_DEPTH || budget <= 0) {
        node.unread = true;
        continue;
      }
      budget -= 1;
      try {
        const child = await read(e.childId);
        node.status = child.status;
        if (child.failure) node.failure = child.failure;
        node.children = await walk(subAgentsOf(child), depth + 1);
      } catch (err) {
        // Not started yet, or not this console's (another queue): what the caller's history says stands.
        if (!DurableAgentsError.isDurableAgentsError(err)) throw err;
        node.unread = true;
      }
    }
    return nodes;
  };
  return walk(subAgentsOf(detail), 1);
}

const subAgentsOf = (d: ConsoleDetail) => d.timeline.filter((e): e is SubAgentEntry => e.type === "sub-agent");

const runHref = (base: string, id: string) => `${base}/runs/${encodeURIComponent(id)}`;

/** The tree as nested disclosures (open), each run a link to its own page with its status. */
export function renderSubAgentTree(nodes: SubAgentNode[], base: string): Html {
  if (nodes.length === 0) return html``;
  return html`<section class="sub-agents" aria-labelledby="sub-agents-h"><h2 id="sub-agents-h">Sub-agents</h2>${list(nodes, base, 1)}</section>`;
}

function list(nodes: SubAgentNode[], base: string, level: number): Html {
  return html`<ul class="tree" data-level="${String(level)}">${nodes.map((n) => {
    const label = html`<a href="${runHref(base, n.id)}">${n.agentId ? html`<code>${n.agentId}</code>` : oneLine(n.id)}</a> <span class="badge ${n.status}" data-status="${n.status}">${n.status}</span>${n.toolCallId ? html` <small>for call <code>${oneLine(n.toolCallId)}</code></small>` : ""}${
      n.failure?.code ? html` <code class="error">${n.failure.code}</code>` : ""
    }${n.unread ? html` <small>(its own sub-agents: on its page)</small>` : ""}`;
    return n.children.length === 0
      ? html`<li class="node" data-id="${n.id}">${label}</li>`
      : html`<li class="node" data-id="${n.id}"><details open><summary>${label} <small>${String(n.children.length)} sub-agent(s)</small></summary>${list(n.children, base, level + 1)}</details></li>`;
  })}</ul>`;
}

/** The timeline entries this file brings (sub-agents, async answers, reminders, escalations), or undefined for the page's own. */
export function renderTimelineExtra(e: TimelineEntry, base: string, when: Html): Html | undefined {
  switch (e.type) {
    case "sub-agent":
      return html`<li class="event sub-agent">${when} <strong>Sub-agent ${e.agentId ? html`<code>${e.agentId}</code>` : ""}</strong>${e.toolCallId ? html` for call <code>${oneLine(e.toolCallId)}</code>` : ""} · <span class="badge ${e.status}">${e.status}</span> · <a href="${runHref(base, e.childId)}">open its run</a>${
        e.failure ? html`<p class="error">${e.failure.code ? html`<code>${e.failure.code}</code> ` : ""}${oneLine(e.failure.message)}</p>` : ""
      }</li>`;
    case "answer":
      return html`<li class="event answer">${when} <strong>Answered</strong> ${e.toolName ? html`<code>${oneLine(e.toolName)}</code>` : ""} (call <code>${oneLine(e.toolCallId)}</code>)${e.isError ? html` · <span class="badge failed">with an error</span>` : ""}${
        e.waitedMs !== undefined ? html` · after waiting <span class="waited">${duration(e.waitedMs)}</span>` : ""
      }${e.identity ? html` · sent by <code class="identity">${oneLine(e.identity)}</code> holding the call's answer token` : ""}</li>`;
    case "reminded":
      return html`<li class="event reminded">${when} <strong>Reminded</strong> (reminder ${String(e.reminder)}) the approvers of <code>${oneLine(e.approvalId)}</code></li>`;
    case "escalated":
      return html`<li class="event escalated">${when} <strong>Escalated</strong> <code>${oneLine(e.approvalId)}</code>${e.requires.length > 0 ? html` to <code>${oneLine(e.requires.join(", "))}</code>` : ""}</li>`;
    default:
      return undefined;
  }
}

/** A waiting async call's line: since when it waits (its answer, once there, says who sent it). */
export function renderAsyncWait(e: Extract<TimelineEntry, { type: "tool" }>, answered: boolean): Html {
  if (!e.started) return html``;
  const since = new Date(Date.parse(e.at) + (e.durationMs ?? 0)).toISOString();
  return html` · <span class="async-wait">${answered ? "waited for its answer from" : html`<span class="badge waiting">waiting for its answer</span> since`} <time datetime="${since}">${since.slice(11, 19)}</time></span>`;
}

/** An approver's edits, as each changed field: what the model wrote, what ran. */
export function renderEdits(edits: DecisionEdit[] | undefined): Html {
  if (!edits || edits.length === 0) return html``;
  return html`<ul class="edits">${edits.map(
    (edit) =>
      html`<li>Edited ${edit.toolName ? html`<code>${oneLine(edit.toolName)}</code> ` : ""}(call <code>${oneLine(edit.toolCallId)}</code>): ${edit.changes.map(
        (c, i) =>
          html`${i > 0 ? "; " : ""}<code>${oneLine(c.path || "/")}</code> <span class="from">${c.from === undefined ? "(absent)" : printableJson(JSON.stringify(c.from))}</span> → <span class="to">${c.to === undefined ? "(removed)" : printableJson(JSON.stringify(c.to))}</span>`,
      )}</li>`,
  )}</ul>`;
}

const duration = (ms: number) => (ms < 1000 ? `${ms} ms` : ms < 120_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 60_000)} min`);

export const TREE_STYLE = `
ul.tree{list-style:none;padding-left:1.1rem;margin:.25rem 0;border-left:1px dashed #ccd}ul.tree[data-level="1"]{padding-left:0;border:0}
ul.tree li.node{margin:.25rem 0}ul.tree summary{cursor:pointer}
li.event.sub-agent{border-color:#7d5ba6}li.event.answer{border-color:#3aa76d}li.event.reminded,li.event.escalated{border-color:#e0a800}
ul.edits{margin:.2rem 0 0;padding-left:1.1rem}ul.edits .from{text-decoration:line-through;color:#a4161a}ul.edits .to{color:#1d6b3a}
`;
