import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { BundleOptions } from "@temporalio/worker";

/** The agent workflows' module: `.ts` when running from source, `.js` once built. */
export function agentWorkflowsPath(): string {
  const base = new URL("../../workflows/index", import.meta.url);
  const js = fileURLToPath(`${base.href}.js`);
  return existsSync(js) ? js : fileURLToPath(`${base.href}.ts`);
}

const NAME = "durable-agents";
const COMBINED_ID = "durable-agents/workflows";

/**
 * Bundle options whose workflows are the agent workflows plus those of
 * `options.workflowsPath`, if it names a module of the user's.
 *
 * A Temporal bundle takes its workflows from one module: the entry the bundler generates
 * (in memory) requires `workflowsPath` and nothing else. So the entry's request for the
 * user's module is answered by a virtual module, built in memory, that merges the user's
 * exports with ours. Nothing is written to disk, and the bundler keeps doing everything
 * else its own way (interceptor modules, payload and failure converters, ignored modules).
 */
export function withAgentWorkflows(options: BundleOptions): BundleOptions {
  const agentsPath = agentWorkflowsPath();
  const userPath = options.workflowsPath;
  const preloadModules = withSharedModules(options);
  if (!userPath || resolve(userPath) === agentsPath) return { ...options, preloadModules, workflowsPath: agentsPath, webpackConfigHook: hoisted(options.webpackConfigHook) };
  const userHook = hoisted(options.webpackConfigHook);
  return {
    ...options,
    preloadModules,
    webpackConfigHook(config) {
      // The bundler's generated entry: the only module whose request for `userPath` is redirected.
      const entries = new Set(Array.isArray(config.entry) ? config.entry.filter((e): e is string => typeof e === "string") : []);
      if (entries.size === 0) {
        throw new Error(`${NAME}: Temporal's bundler no longer names its entry in config.entry; the agent workflows cannot be added to ${userPath}`);
      }
      const combined: NonNullable<typeof config.plugins>[number] = {
        apply(compiler) {
          // The bundler's own webpack: no second copy, whatever version Temporal resolved.
          new compiler.webpack.experiments.schemes.VirtualUrlPlugin({ [COMBINED_ID]: combinedSource(agentsPath, resolve(userPath)) }).apply(compiler);
          compiler.hooks.normalModuleFactory.tap(NAME, (factory) => {
            factory.hooks.beforeResolve.tap(NAME, (data) => {
              if (data.request === userPath && entries.has(data.contextInfo.issuer)) data.request = `virtual:${COMBINED_ID}`;
            });
          });
        },
      };
      const withCombined = { ...config, plugins: [...(config.plugins ?? []), combined] };
      return userHook ? userHook(withCombined) : withCombined;
    },
  };
}

/**
 * Modules that hold no per-workflow state, evaluated once per worker thread and shared
 * (frozen) by every workflow instead of again for each new one (Temporal's `preloadModules`).
 * `src/core/proof.ts` brings `@noble/hashes/sha2.js`, which builds all six SHA-2 hashers and
 * splits SHA-512's 80 constants into BigInt halves when it loads: about a third of a new
 * workflow's module evaluation, for a hash a workflow needs only when a token is checked.
 * Our module rather than noble's: a package that declares itself free of side effects (noble
 * does) is dropped from the preload list by webpack, ours is kept. The user's own
 * `preloadModules` are kept too.
 */
function withSharedModules(options: BundleOptions): string[] {
  return [...new Set([...(options.preloadModules ?? []), ourModule("../core/proof")])];
}

/** One of our modules by its path from here: `.js` once built, `.ts` running from source. */
function ourModule(relative: string): string {
  const base = new URL(relative, import.meta.url);
  const js = fileURLToPath(`${base.href}.js`);
  return existsSync(js) ? js : fileURLToPath(`${base.href}.ts`);
}

/**
 * The bundler's config with its modules concatenated (webpack's scope hoisting), then the
 * caller's hook. Temporal evaluates every module of the bundle again for each workflow it
 * starts (that is how it keeps module state apart on a reused V8 context), so the cost of
 * each module's wrapper and export getters is paid on every run's first workflow task:
 * concatenated, the agent workflows' modules took 2.1 ms of CPU per start instead of 6.7
 * (profiled in `bench latency`). Only the bundle's shape changes, not what the code does.
 */
function hoisted(hook: BundleOptions["webpackConfigHook"]): NonNullable<BundleOptions["webpackConfigHook"]> {
  return (config) => {
    const next = { ...config, optimization: { ...config.optimization, concatenateModules: true }, module: { ...config.module, rules: asShipped(config.module?.rules) } };
    return hook ? hook(next) : next;
  };
}

/** The package's own sources (running from source: tests, benches, a clone). */
const PACKAGE_ROOT = resolve(fileURLToPath(new URL("../../", import.meta.url)));

/**
 * Our TypeScript sources compiled for ES2022, the target the package ships (tsconfig):
 * Temporal's loader compiles `.ts` for ES2017, which turns class fields and object spreads
 * into helper calls (a step's wire objects, every class of the run). Run from source, the
 * workflows would then cost more than the built package's, and the benches would measure
 * that. Everyone else's `.ts` keeps Temporal's rule as it is.
 */
function asShipped(rules: NonNullable<NonNullable<Parameters<NonNullable<BundleOptions["webpackConfigHook"]>>[0]["module"]>["rules"]> | undefined) {
  if (!rules) return rules;
  const ours = (path: string) => path.startsWith(PACKAGE_ROOT) && !path.includes("node_modules");
  return rules.flatMap((rule) => {
    if (!rule || typeof rule !== "object" || !(rule.test instanceof RegExp) || rule.test.source !== "\\.ts$") return [rule];
    const use = rule.use as { loader?: string; options?: { jsc?: Record<string, unknown> } } | undefined;
    if (!use?.loader?.includes("swc-loader") || !use.options?.jsc) return [rule];
    const theirs = { ...rule, exclude: [rule.exclude, ours].filter((e) => e !== undefined) };
    const mine = { ...rule, include: ours, use: { ...use, options: { ...use.options, jsc: { ...use.options.jsc, target: "es2022" } } } };
    return [theirs, mine];
  });
}

/**
 * The merged workflows module. A name exported by both would silently hide one of the two
 * workflows (`export *` drops ambiguous names), so a clash fails every workflow task with
 * an error that says which names to change.
 */
function combinedSource(agentsPath: string, userPath: string): string {
  return `const agents = require(${JSON.stringify(agentsPath)});
const user = require(${JSON.stringify(userPath)});
const clash = Object.keys(user).filter((name) => Object.prototype.hasOwnProperty.call(agents, name));
if (clash.length > 0) {
  throw new Error("durable-agents: " + ${JSON.stringify(userPath)} + " exports " + clash.join(", ") + ", already the name of an agent workflow: rename it");
}
module.exports = { ...user, ...agents };
`;
}
