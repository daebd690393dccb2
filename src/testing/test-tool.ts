import { DeferError } from "../core/defer.js";
import type { ToolContext, ToolDefinition } from "../core/define-tool.js";
import { DeferOutsideRunError } from "../core/errors/setup.js";
import { checkedProgress } from "../core/tool-progress.js";

/**
 * Runs a tool's handler outside any run, for unit tests: input is parsed with the tool's
 * schema, `ctx` gets harmless defaults you can override. Deferring (`ctx.defer()`, reading
 * `ctx.deferral.token`, throwing `DeferError`) refuses with AI1006 and writes nothing.
 */
export async function testTool<O>(tool: ToolDefinition<any, O>, input: unknown, ctx: Partial<ToolContext> = {}): Promise<Awaited<O>> {
  const where = `testTool(${tool.name})`;
  const refuse = () => {
    throw new DeferOutsideRunError({ where });
  };
  const context: ToolContext = {
    runId: "test-run",
    agentId: "test-agent",
    toolCallId: "test-call",
    idempotencyKey: "test-run/test-call",
    principal: undefined,
    signal: new AbortController().signal,
    attempt: 1,
    deferralId: "dfr:0:test-run",
    restored: false,
    dispatch: () => Promise.reject(new DeferOutsideRunError({ where: `${where} ctx.dispatch()` })),
    // Checked as on a worker (AI1001, AI1016), then dropped: there are no readers.
    progress: (data) => void checkedProgress(data, tool.name),
    ...ctx,
    deferral: {
      get token(): string {
        return refuse();
      },
    },
    defer: refuse,
  };
  try {
    return (await tool.handler(tool.input.parse(input), context)) as Awaited<O>;
  } catch (err) {
    if (DeferError.isInstance(err)) refuse();
    throw err;
  }
}
