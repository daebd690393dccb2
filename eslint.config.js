import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import tseslint from "typescript-eslint";

const root = dirname(fileURLToPath(import.meta.url));

/**
 * The layout by runtime boundary, as an allow-list: each zone names the only folders and
 * packages its files may import. Workflow code runs in Temporal's deterministic sandbox,
 * so it (and the kernel it shares with the rest) may reach nothing that does I/O; an
 * import that is not on the list fails lint here instead of failing the bundle later.
 */
const SANDBOX_PACKAGES = ["@temporalio/workflow", "@temporalio/common", "@cfworker/json-schema", "@noble/hashes"];
/**
 * Inside workflows/, each folder names a concept and imports only the folders below it:
 * shared ← deferrals ← approvals ← runs, threads; plain (what a user's own workflow calls)
 * sits on deferrals. So nothing runs back up, and a run never reaches into a thread.
 */
const workflowLayer = (folder, below, why) => ({
  name: `workflow code in workflows/${folder}/`,
  files: [`workflows/${folder}/`],
  dirs: [folder, ...below].map((f) => `workflows/${f}/`).concat("src/core/"),
  packages: SANDBOX_PACKAGES,
  why: `it runs in Temporal's deterministic sandbox, and ${why}: import only ${[folder, ...below].map((f) => `workflows/${f}/`).join(", ")}, src/core/ and Temporal's workflow packages`,
});
const zones = [
  workflowLayer("shared", [], "what runs, threads and deferrals share sits under them all"),
  workflowLayer("deferrals", ["shared"], "parking and resuming serves runs, threads and plain workflows alike"),
  workflowLayer("approvals", ["deferrals", "shared"], "an approval request is a deferral that runs and threads both make"),
  workflowLayer("plain", ["deferrals", "shared"], "a plain workflow reaches an agent run as a child, never its code"),
  workflowLayer("runs", ["approvals", "deferrals", "shared"], "a run never reaches into a thread"),
  workflowLayer("threads", ["approvals", "deferrals", "shared"], "a thread never reaches into a run"),
  {
    name: "workflow code",
    files: ["workflows/"],
    dirs: ["workflows/", "src/core/"],
    packages: SANDBOX_PACKAGES,
    why: "it runs in Temporal's deterministic sandbox: import only workflows/, src/core/ and Temporal's workflow packages",
  },
  {
    name: "the sandbox-safe kernel (src/core/)",
    files: ["src/core/"],
    dirs: ["src/core/"],
    packages: [...SANDBOX_PACKAGES, "zod"],
    why: "workflow code imports it: keep Node, clients, workers and activities out of it",
  },
  {
    name: "activity code",
    files: ["activities/"],
    deniedDirs: ["workflows/"],
    why: "activities share contracts with workflows through src/core/, never workflow modules",
  },
  {
    name: "the HTTP front door (src/http/)",
    files: ["src/http/", "src/http.ts"],
    deniedDirs: ["workflows/", "activities/"],
    why: "it sits on the clients (src/client/) and the kernel: never on workflow or activity code",
  },
  {
    name: "the MCP server and MCP tools (src/mcp/)",
    files: ["src/mcp/", "src/mcp.ts"],
    deniedDirs: ["workflows/", "activities/"],
    why: "it sits on the clients (src/client/) and the kernel, like the HTTP front door: never on workflow or activity code",
  },
  {
    name: "the browser clients (src/react/)",
    files: ["src/react/", "src/react.ts"],
    dirs: ["src/react/", "src/core/"],
    packages: ["react", "ai"],
    allowTypeImports: true,
    why: "they run in a page: the pure kernel (src/core/), React and the AI SDK's types only; never Node, Temporal clients or the front door",
  },
  {
    name: "the deferral secrets and tokens (src/deferral/)",
    files: ["src/deferral/"],
    dirs: ["src/deferral/", "src/core/"],
    packages: ["node:crypto", "@temporalio/common"],
    why: "it is Node-side code the clients, the worker and activities all share (secrets, tokens, approval links): the kernel (src/core/), node:crypto and Temporal's common types only, never a client, a worker, an activity or workflow code, so each side imports it without running back up",
  },
  {
    name: "the stream transports (src/stream/)",
    files: ["src/stream/"],
    dirs: ["src/stream/", "src/core/", "src/codec/payload-json.", "src/codec/chain."],
    packages: ["redis", "@temporalio/common", "@temporalio/client", "@temporalio/proto", "node:http", "node:https", "node:net", "node:os", "node:timers", "node:tls", "node:crypto"],
    why: "the worker's publisher and the clients' readers both hold a transport: the kernel (src/core/), a payload's JSON form and a codec list as one codec (src/codec/payload-json.ts, chain.ts), the Redis client, Node's HTTP, TLS and crypto (the direct transport's endpoint, its readers and what they prove) and Temporal's packages (the direct transport finds workers through a Temporal client) only, never our clients, a worker, an activity or workflow code, so each side imports it without running back up",
  },
  {
    name: "the public API",
    files: ["src/"],
    except: ["src/core/", "src/workflow.ts"],
    deniedDirs: ["workflows/"],
    allowTypeImports: true,
    why: "clients and the worker reach workflows through src/core/ (messages, contracts); only `import type` of a workflow function",
  },
];

const packageOf = (spec) => spec.split("/").slice(0, spec.startsWith("@") ? 2 : 1).join("/");

const layoutRule = {
  meta: { type: "problem", schema: [], messages: { refused: "{{where}} must not import \"{{spec}}\": {{why}}." } },
  create(context) {
    const file = relative(root, context.filename);
    const zone = zones.find((z) => z.files.some((f) => file.startsWith(f)) && !(z.except ?? []).some((e) => file.startsWith(e)));
    if (!zone) return {};
    const check = (node, source, typeOnly) => {
      const spec = source?.value;
      if (typeof spec !== "string") return;
      if (typeOnly && zone.allowTypeImports) return;
      let ok;
      if (spec.startsWith(".")) {
        const target = relative(root, resolve(dirname(context.filename), spec));
        ok = zone.dirs ? zone.dirs.some((d) => target.startsWith(d)) : !zone.deniedDirs.some((d) => target.startsWith(d));
      } else {
        ok = zone.packages ? zone.packages.includes(packageOf(spec)) : true;
      }
      if (!ok) context.report({ node, messageId: "refused", data: { where: zone.name, spec, why: zone.why } });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source, node.importKind === "type"),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source, node.exportKind === "type"),
      ExportAllDeclaration: (node) => check(node, node.source, node.exportKind === "type"),
      ImportExpression: (node) => check(node, node.source, false),
    };
  },
};

export default tseslint.config(
  // test-artifacts/ is what the suite builds while lint runs beside it (the CLI tests compile the package there).
  { ignores: ["dist/**", "node_modules/**", "coverage/**", "test-artifacts/**"] },
  ...tseslint.configs.recommended,
  {
    plugins: { layout: { rules: { boundaries: layoutRule } } },
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "layout/boundaries": "error",
    },
  },
  {
    // The docs' snippets name what a call returns to show its shape, without using it.
    files: ["examples/docs/**"],
    rules: { "@typescript-eslint/no-unused-vars": "off" },
  },
);
