import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const eslint = new ESLint({ cwd: new URL("..", import.meta.url).pathname });
const lint = async (code: string, filePath = "workflows/example.ts") => {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.map((m) => m.message);
};

describe("the workflow import rule", () => {
  it.each([
    ['import { readFileSync } from "node:fs";', /Node built-ins/],
    ['import { randomUUID } from "crypto";', /Node built-ins/],
    ['import { Client } from "@temporalio/client";', /client, the worker/],
    ['import { Worker } from "@temporalio/worker";', /client, the worker/],
    ['import { createActivities } from "../activities/index.js";', /activity, client, worker/],
    ['import { AgentClient } from "../src/client/agent-client.js";', /activity, client, worker/],
  ])("refuses %s in workflow code", async (line, message) => {
    const messages = await lint(`${line}\nexport const x = 1;\n`);
    expect(messages.join("\n")).toMatch(message);
  });

  it("allows type-only imports and sandbox-safe modules in workflow code", async () => {
    const code = [
      'import type { AgentActivities } from "./contracts.js";',
      'import type { Client } from "@temporalio/client";',
      'import { proxyActivities } from "@temporalio/workflow";',
      'export const a = proxyActivities<AgentActivities>({ startToCloseTimeout: "1m" });',
      "export type C = Client;",
    ].join("\n");
    expect(await lint(code)).toEqual([]);
  });

  it("does not apply outside workflows/", async () => {
    expect(await lint('import { readFileSync } from "node:fs";\nexport const r = readFileSync;\n', "activities/x.ts")).toEqual([]);
  });
});
