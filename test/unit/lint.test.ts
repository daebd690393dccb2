import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

const eslint = new ESLint({ cwd: new URL("../..", import.meta.url).pathname });
// Loading the config (typescript-eslint) takes seconds: once here, not inside the first case's time limit.
beforeAll(() => eslint.calculateConfigForFile("workflows/example.ts"), 60_000);
const lint = async (code: string, filePath: string) => {
  const [result] = await eslint.lintText(`${code}\nexport const x = 1;\n`, { filePath });
  return result!.messages.map((m) => m.message).join("\n");
};

describe("the layout rule (an allow-list per runtime boundary)", () => {
  it.each([
    ['import { readFileSync } from "node:fs";', "workflows/example.ts"],
    ['import { randomUUID } from "crypto";', "workflows/example.ts"],
    ['import { Client } from "@temporalio/client";', "workflows/example.ts"],
    ['import type { Client } from "@temporalio/client";', "workflows/example.ts"],
    ['import { Worker } from "@temporalio/worker";', "workflows/example.ts"],
    ['import OpenAI from "openai";', "workflows/example.ts"],
    ['import { createActivities } from "../activities/index.js";', "workflows/example.ts"],
    ['import { AgentClient } from "../src/client/agent-client.js";', "workflows/example.ts"],
    // node:crypto reached through src/: a deny-list of Node built-ins would let this through.
    ['import { mintResumeToken } from "../src/deferral/token.js";', "workflows/example.ts"],
    ['import { ThreadsClient } from "../src/client/threads/threads-client.js";', "workflows/example.ts"],
    ['import { createHash } from "node:crypto";', "src/core/example.ts"],
    ['import { verifyResumeToken } from "../deferral/token.js";', "src/core/example.ts"],
    ['import { agentRun } from "../workflows/runs/agent-run.js";', "activities/example.ts"],
    ['import { agentRun } from "../../workflows/runs/agent-run.js";', "src/client/example.ts"],
    // Browser code: a page has no Node, and the Temporal clients do not belong in it.
    ['import { readFileSync } from "node:fs";', "src/react/example.ts"],
    ['import { Client } from "@temporalio/client";', "src/react/example.ts"],
    ['import { ThreadsClient } from "../client/threads/threads-client.js";', "src/react/example.ts"],
    // src/deferral is shared by clients, worker and activities: it reaches none of them.
    ['import { AgentClient } from "../client/agent-client.js";', "src/deferral/example.ts"],
    ['import { ThreadsClient } from "../client/threads/threads-client.js";', "src/deferral/example.ts"],
    ['import { createAgentWorker } from "../worker/create-agent-worker.js";', "src/deferral/example.ts"],
    ['import { createActivities } from "../../activities/index.js";', "src/deferral/example.ts"],
    ['import type { agentRun } from "../../workflows/runs/agent-run.js";', "src/deferral/example.ts"],
    ['import type { Client } from "@temporalio/client";', "src/deferral/example.ts"],
    ['import { readFileSync } from "node:fs";', "src/deferral/example.ts"],
    // The MCP server sits on the clients, like the HTTP front door.
    ['import { createActivities } from "../../activities/index.js";', "src/mcp/example.ts"],
    ['import type { agentRun } from "../../workflows/runs/agent-run.js";', "src/mcp/example.ts"],
    // The stream transports sit under both the worker's publisher and the clients' readers.
    ['import { ThreadsClient } from "../client/threads/threads-client.js";', "src/stream/example.ts"],
    ['import { createAgentWorker } from "../worker/create-agent-worker.js";', "src/stream/example.ts"],
    ['import { createActivities } from "../../activities/index.js";', "src/stream/example.ts"],
    ['import type { threadWorkflow } from "../../workflows/threads/agent-thread.js";', "src/stream/example.ts"],
    ['import { aesGcmCodec } from "../codec/aes-gcm.js";', "src/stream/example.ts"],
    ['import { Redis } from "ioredis";', "src/stream/example.ts"],
    // Inside workflows/, each folder imports only the ones below it.
    ['import { readFileSync } from "node:fs";', "workflows/runs/example.ts"],
    ['import { ThreadState } from "../threads/state.js";', "workflows/runs/example.ts"],
    ['import type { RunContext } from "../runs/context.js";', "workflows/threads/example.ts"],
    ['import { DeferralBook } from "../deferrals/book.js";', "workflows/shared/example.ts"],
    ['import { requestApproval } from "../approvals/requests.js";', "workflows/deferrals/example.ts"],
    ['import type { RunContext } from "../runs/context.js";', "workflows/approvals/example.ts"],
    ['import type { agentRun } from "../runs/agent-run.js";', "workflows/plain/example.ts"],
    // Nothing runs back up: a layer never imports one that sits on it.
    ['import { buildApp } from "../http/handler.js";', "src/client/example.ts"],
    ['import { runCli } from "../cli/main.js";', "src/client/example.ts"],
    ['import { createAgentWorker } from "../worker/create-agent-worker.js";', "src/client/example.ts"],
    ['import { AgentClient } from "../client/agent-client.js";', "src/worker/example.ts"],
    ['import { buildApp } from "../http/handler.js";', "src/worker/example.ts"],
    ['import { createAgentWorker } from "../src/worker/create-agent-worker.js";', "activities/example.ts"],
    ['import { buildApp } from "../src/http/handler.js";', "activities/example.ts"],
    ['import { createMcpServer } from "../mcp/server.js";', "src/http/example.ts"],
    ['import { buildApp } from "../http/handler.js";', "src/mcp/example.ts"],
    ['import { AgentClient } from "../client/agent-client.js";', "src/model/example.ts"],
    ['import { createActivities } from "../../activities/index.js";', "src/otel/example.ts"],
    ['import { readRunMessages } from "../client/run-messages.js";', "src/codec/example.ts"],
    ['import { AgentClient } from "../client/agent-client.js";', "src/testing/example.ts"],
  ])("refuses %s in %s", async (line, file) => {
    expect(await lint(line, file)).toMatch(/must not import/);
  });

  it.each([
    ['import { proxyActivities } from "@temporalio/workflow";', "workflows/example.ts"],
    ['import { msToNumber } from "@temporalio/common/lib/time.js";', "workflows/example.ts"],
    ['import { plainJsonProblem } from "../src/core/json-check.js";', "workflows/example.ts"],
    ['import { StreamLog } from "../shared/stream-log.js";', "workflows/threads/example.ts"],
    ['import { z } from "zod";', "src/core/example.ts"],
    ['import { readFileSync } from "node:fs";', "activities/example.ts"],
    ['import type { agentRun } from "../../workflows/runs/agent-run.js";', "src/client/example.ts"],
    ['import { fanOut } from "../workflows/plain/fan-out.js";', "src/workflow.ts"],
    ['import { useSyncExternalStore } from "react";', "src/react/example.ts"],
    ['import { toUIMessages } from "../core/ui-messages.js";', "src/react/example.ts"],
    ['import type { ThreadView } from "../client/threads/thread-types.js";', "src/react/example.ts"],
    ['import { createHmac } from "node:crypto";', "src/deferral/example.ts"],
    ['import { durationMs } from "../core/duration.js";', "src/deferral/example.ts"],
    ['import { approvalUrlBase } from "./approval-url.js";', "src/deferral/example.ts"],
    ['import type { Duration } from "@temporalio/common";', "src/deferral/example.ts"],
    ['import { Server } from "@modelcontextprotocol/sdk/server/index.js";', "src/mcp/example.ts"],
    ['import type { AgentClient } from "../client/agent-client.js";', "src/mcp/example.ts"],
    ['import { createClient } from "redis";', "src/stream/example.ts"],
    ['import type { PayloadCodec } from "@temporalio/common";', "src/stream/example.ts"],
    ['import { asStreamUpdate } from "../core/stream-fold.js";', "src/stream/example.ts"],
    ['import { payloadToJson } from "../codec/payload-json.js";', "src/stream/example.ts"],
    ['import type { StreamTransport } from "./transport.js";', "src/stream/example.ts"],
    ['import { requestApproval } from "../approvals/requests.js";', "workflows/runs/example.ts"],
    ['import { DeferralBook } from "../deferrals/book.js";', "workflows/threads/example.ts"],
    ['import { agentSinks } from "../shared/sinks.js";', "workflows/deferrals/example.ts"],
    ['import { agentRun } from "./runs/agent-run.js";', "workflows/index.ts"],
    ['import { AgentClient } from "../client/agent-client.js";', "src/http/example.ts"],
    ['import { AgentClient } from "../client/agent-client.js";', "src/cli/example.ts"],
    ['import { createActivities } from "../../activities/index.js";', "src/worker/example.ts"],
    ['import { ringParkBell } from "../stream/park-bell.js";', "src/worker/example.ts"],
    ['import { mintResumeToken } from "../deferral/token.js";', "src/client/example.ts"],
    ['import { durationMs } from "../core/duration.js";', "src/model/example.ts"],
  ])("allows %s in %s", async (line, file) => {
    expect(await lint(line, file)).not.toMatch(/must not import/);
  });
});

describe("the declared-imports rule (what the package ships imports only what package.json declares)", () => {
  it.each([
    // A dev dependency resolves here and not in a user's install.
    ['import { describe } from "vitest";', "src/client/example.ts"],
    ['import type { ESLint } from "eslint";', "src/core/example.ts"],
    // A transitive dependency resolves here by hoisting only.
    ['import { Long } from "long";', "activities/example.ts"],
    ['const pg = await import("pg");', "src/testing/example.ts"],
    ['export { Server } from "protobufjs";', "workflows/example.ts"],
  ])("refuses %s in %s", async (line, file) => {
    expect(await lint(line, file)).toMatch(/is not a dependency or peer dependency in package.json/);
  });

  it.each([
    ['import proto from "@temporalio/proto";', "src/worker/example.ts"],
    ['import type { temporal } from "@temporalio/proto";', "src/client/example.ts"],
    ['import { Context } from "@temporalio/activity";', "activities/example.ts"],
    ['import OpenAI from "openai";', "src/model/example.ts"],
    ['import { createHash } from "node:crypto";', "src/stream/example.ts"],
    ['import { readFileSync } from "fs";', "src/cli/example.ts"],
    // Tests, benches and examples are not shipped: their imports are the repository's business.
    ['import { describe } from "vitest";', "test/example.test.ts"],
  ])("allows %s in %s", async (line, file) => {
    expect(await lint(line, file)).not.toMatch(/is not a dependency/);
  });
});

describe("Temporal's unpublished interfaces, used only in src/temporal/", () => {
  it.each([
    ['import { msToNumber } from "@temporalio/common/lib/time.js";', "src/core/example.ts"],
    ['import { loadDataConverter } from "@temporalio/common/lib/internal-non-workflow/index.js";', "src/client/example.ts"],
    ['const q = (h: { query(n: string): unknown }) => h.query("__temporal_workflow_metadata");', "src/client/example.ts"],
    ['const n = (w: { nativeWorker?: unknown }) => w.nativeWorker;', "src/worker/example.ts"],
  ])("refuses %s in %s", async (line, file) => {
    expect(await lint(line, file)).toMatch(/Temporal does not publish|not ours to spell|are unpublished/);
  });

  it.each([
    ['import { loadDataConverter } from "@temporalio/common/lib/internal-non-workflow/index.js";', "src/temporal/example.ts"],
    ['import { workflowMetadataQuery } from "@temporalio/workflow";', "src/client/example.ts"],
    ['import { defaultPayloadConverter } from "@temporalio/common";', "src/client/example.ts"],
  ])("allows %s in %s", async (line, file) => {
    expect(await lint(line, file)).not.toMatch(/Temporal does not publish|not ours to spell|are unpublished/);
  });
});
