import { readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
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

/** What sits on the clients: the front doors, the browser clients and the CLI. Nothing below them imports them. */
const ABOVE_CLIENTS = ["src/http/", "src/mcp/", "src/react/", "src/cli/"];
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
    deniedDirs: ["workflows/", ...ABOVE_CLIENTS, "src/worker/", "src/testing/"],
    why: "activities share contracts with workflows through src/core/, never workflow modules; the worker assembles them, the front doors and the CLI sit above them",
  },
  {
    name: "the HTTP front door (src/http/)",
    files: ["src/http/", "src/http.ts"],
    deniedDirs: ["workflows/", "activities/", "src/worker/", "src/testing/", "src/cli/", "src/mcp/", "src/react/"],
    why: "it sits on the clients (src/client/) and the kernel: never on workflow or activity code, the worker, or another front door",
  },
  {
    name: "the MCP server and MCP tools (src/mcp/)",
    files: ["src/mcp/", "src/mcp.ts"],
    deniedDirs: ["workflows/", "activities/", "src/worker/", "src/testing/", "src/cli/", "src/http/", "src/react/"],
    why: "it sits on the clients (src/client/) and the kernel, like the HTTP front door: never on workflow or activity code, the worker, or another front door",
  },
  {
    name: "the clients (src/client/)",
    files: ["src/client/"],
    deniedDirs: ["workflows/", "activities/", ...ABOVE_CLIENTS, "src/worker/", "src/testing/"],
    allowTypeImports: true,
    why: "the front doors, the CLI and the browser clients sit on the clients, never the other way; the clients reach workflows through src/core/ (messages, contracts) and the worker is a separate process",
  },
  {
    name: "the worker assembly (src/worker/)",
    files: ["src/worker/"],
    deniedDirs: ["workflows/", "src/client/", ...ABOVE_CLIENTS, "src/testing/"],
    allowTypeImports: true,
    why: "it assembles activities, transports and the workflow bundle (by path): clients, front doors and test helpers sit beside or above it",
  },
  {
    name: "the model adapters, telemetry and payload codecs (src/model/, src/otel/, src/codec/)",
    files: ["src/model/", "src/otel/", "src/codec/"],
    dirs: ["src/model/", "src/otel/", "src/codec/", "src/core/"],
    why: "activities, clients and the worker all use them: the kernel (src/core/) only, so none of them runs back up",
  },
  {
    name: "the test helpers (src/testing/)",
    files: ["src/testing/"],
    dirs: ["src/testing/", "src/core/"],
    why: "the dev server and the scripted model stand beside a user's code: the kernel (src/core/) only, never the clients or the worker they are used with",
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
    name: "the adapter of Temporal's unpublished interfaces (src/temporal/)",
    files: ["src/temporal/"],
    dirs: ["src/temporal/"],
    packages: ["@temporalio/common", "@temporalio/proto", "@temporalio/worker", "@temporalio/client"],
    why: "it holds each use of an interface Temporal does not publish, on Temporal's packages alone, so the rest of the package reaches them only through it",
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

/**
 * What the package ships (package.json "files": src/, workflows/, activities/) imports only
 * packages its package.json declares as dependencies or peers: an import that resolves here
 * only because the package is a dev dependency, or hoisted from another package's
 * dependencies, fails for a user (at once under pnpm; under npm the day the other package
 * drops it). Type imports count: the emitted declarations name the package too.
 */
const manifest = JSON.parse(readFileSync(resolve(root, "package.json"), "utf8"));
const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
const SHIPPED = ["src/", "workflows/", "activities/"];

const declaredRule = {
  meta: { type: "problem", schema: [], messages: { undeclared: "\"{{spec}}\" is not a dependency or peer dependency in package.json: declare {{name}} there (users' installs see only what it declares)." } },
  create(context) {
    const file = relative(root, context.filename);
    if (!SHIPPED.some((dir) => file.startsWith(dir))) return {};
    const check = (node, source) => {
      const spec = source?.value;
      if (typeof spec !== "string" || spec.startsWith(".") || spec.startsWith("/") || isBuiltin(spec)) return;
      const name = packageOf(spec);
      if (!declared.has(name)) context.report({ node, messageId: "undeclared", data: { spec, name } });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
    };
  },
};

export default tseslint.config(
  // test-artifacts/ is what the suite builds while lint runs beside it (the CLI tests compile the package there).
  { ignores: ["dist/**", "node_modules/**", "coverage/**", "test-artifacts/**"] },
  ...tseslint.configs.recommended,
  {
    plugins: { layout: { rules: { boundaries: layoutRule, declared: declaredRule } } },
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "layout/boundaries": "error",
      "layout/declared": "error",
    },
  },
  {
    // Temporal's unpublished interfaces are used in one file, src/temporal/internals.ts, each
    // with a test against the installed SDK: a deep import, a reserved name or a protected
    // member anywhere else would break unnoticed on a Temporal upgrade.
    files: ["src/**", "workflows/**", "activities/**"],
    ignores: ["src/temporal/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ regex: "^@temporalio/[^/]+/lib/", message: "Temporal does not publish its lib/ modules: use the package's entry point, or add the use to src/temporal/internals.ts with a test." }] },
      ],
      "no-restricted-syntax": [
        "error",
        { selector: "Literal[value=/^__temporal_|^__stack_trace$|^__enhanced_stack_trace$/]", message: "Temporal's reserved names are not ours to spell: use what @temporalio publishes (workflowMetadataQuery, …), or add the use to src/temporal/internals.ts with a test." },
        { selector: "MemberExpression[property.name='nativeWorker']", message: "A Temporal worker's protected members are unpublished: add the use to src/temporal/internals.ts with a test." },
      ],
    },
  },
  {
    // The docs' snippets name what a call returns to show its shape, without using it.
    files: ["examples/docs/**"],
    rules: { "@typescript-eslint/no-unused-vars": "off" },
  },
);
