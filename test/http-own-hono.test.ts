/**
 * The front door installed as a user installs it, beside the app's own `hono` of another
 * version: npm then nests the package's `hono` under it, and packages that take `hono` as a
 * peer resolve the app's copy. Every JSON route still answers a body that is not JSON with
 * 400 AI1040 (an HTTPException of the other copy read as a 500 "internal" before). The
 * package is the one global-setup compiled (test/cli-build.ts); the app's node_modules links
 * the repository's packages, copying `hono` and whatever takes it as a peer, as npm lays them out.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type * as Http from "../src/http.js";
import type * as Sdk from "../src/index.js";
import { startHarness, type Harness } from "./harness.js";

const repo = new URL("..", import.meta.url).pathname;
const modules = join(repo, "node_modules");

let h: Harness;
let app: string;
let frontDoor: (request: Request) => Promise<Response>;

/** A user's project: the compiled package under node_modules/durable-agents with its own hono nested, the app's hono (a copy: another module) at the top. */
function userProject(): string {
  const dir = mkdtempSync(join(tmpdir(), "durable-agents-own-hono-"));
  const top = join(dir, "node_modules");
  const pkg = join(top, "durable-agents");
  mkdirSync(join(pkg, "node_modules"), { recursive: true });
  cpSync(join(inject("cliArtifacts"), "dist"), join(pkg, "dist"), { recursive: true });
  cpSync(join(repo, "package.json"), join(pkg, "package.json"));
  symlinkSync(join(modules, "hono"), join(pkg, "node_modules", "hono"));
  const takesHono = (dir: string) => {
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { peerDependencies?: Record<string, string> };
    return manifest.peerDependencies?.hono !== undefined;
  };
  const place = (name: string) => {
    const from = join(modules, name);
    // Copied, these resolve `hono` from the app's node_modules, as npm hoists them; linked, from the repository's.
    if (name === "hono" || takesHono(from)) cpSync(from, join(top, name), { recursive: true });
    else symlinkSync(from, join(top, name));
  };
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith(".")) continue;
    if (!entry.startsWith("@")) {
      place(entry);
      continue;
    }
    mkdirSync(join(top, entry));
    for (const scoped of readdirSync(join(modules, entry))) place(`${entry}/${scoped}`);
  }
  return dir;
}

beforeAll(async () => {
  h = await startHarness();
  app = userProject();
  const dist = join(app, "node_modules", "durable-agents", "dist", "src");
  const { AgentClient } = (await import(pathToFileURL(join(dist, "index.js")).href)) as typeof Sdk;
  const { createAgentHttpHandler } = (await import(pathToFileURL(join(dist, "http.js")).href)) as typeof Http;
  const agents = new AgentClient({ connection: h.connection, namespace: h.namespace, taskQueue: "own-hono" });
  frontDoor = createAgentHttpHandler({ agents, authenticate: () => ({ id: "alice" }), onError: () => undefined });
});
afterAll(async () => {
  if (app) rmSync(app, { recursive: true, force: true });
  await h?.close();
});

describe("the front door beside the app's own hono", () => {
  it("answers a body that is not JSON with 400 AI1040 on every JSON route", async () => {
    const routes = [
      "/runs",
      "/runs/r-1/cancel",
      "/resume",
      "/approvals/dfr:1:r-1",
      "/threads",
      "/threads/t-1/messages",
      "/threads/t-1/messages/add",
      "/threads/t-1/resume",
      "/threads/t-1/tool-calls/c-1/result",
      "/threads/t-1/tool-calls/c-1/error",
      "/threads/t-1/approvals/dfr:1:t-1",
    ];
    for (const path of routes) {
      for (const body of ["{ not json", "", "token=x&payload=1"]) {
        const response = await frontDoor(new Request(`http://app.test${path}`, { method: "POST", headers: { "content-type": "application/json" }, body }));
        expect({ path, body, status: response.status, error: ((await response.json()) as { error: { code: string } }).error.code }).toEqual({ path, body, status: 400, error: "AI1040" });
      }
    }
  });

  it("serves the rest as before: an unknown run is 404 AI1010", async () => {
    const response = await frontDoor(new Request("http://app.test/runs/no-such-run"));
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("AI1010");
  });
});
