/**
 * The manual's examples as a new user copies them (README.md and every page under docs/):
 * every package their TypeScript imports is one README tells them to install (a strict
 * installer such as pnpm finds nothing else), every entry they import is one the package
 * exports, and a pinned install matches the version durable-agents depends on.
 */
import { readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { docFiles, root } from "../../scripts/docs-snippets.js";

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const manual = docFiles().map((file) => readFileSync(join(root, file), "utf8"));
const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  name: string;
  exports: Record<string, unknown>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};

/** The bodies of the fenced blocks in `langs`, indented ones (inside a list) included. */
function blocks(text: string, langs: string[]): string[] {
  const found: string[] = [];
  const fence = /^( *)```(\w*)[^\n]*\n([\s\S]*?)^\1```[ \t]*$/gm;
  for (const m of text.matchAll(fence)) if (langs.includes(m[2]!)) found.push(m[3]!);
  return found;
}

/** What a module specifier installs: `@scope/name` or `name`, without a subpath. */
const packageOf = (specifier: string) => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/");

function importsOf(code: string): string[] {
  const specifiers = [...code.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)["']([^"']+)["']/g)].map((m) => m[1]!);
  return specifiers.filter((s) => !s.startsWith(".") && !s.startsWith("/"));
}

/** Each `npm install …` (or `npm i`, `pnpm add`, `yarn add`) in README, prose or block, as name → version given. */
function installs(text: string): Map<string, string | undefined> {
  const named = new Map<string, string | undefined>();
  for (const m of text.matchAll(/\b(?:npm (?:install|i)|pnpm add|yarn add)\b([^`#;&\n]*)/g)) {
    for (const spec of m[1]!.trim().split(/\s+/)) {
      if (spec === "" || spec.startsWith("-")) continue;
      const at = spec.indexOf("@", 1);
      named.set(at === -1 ? spec : spec.slice(0, at), at === -1 ? undefined : spec.slice(at + 1));
    }
  }
  return named;
}

const code = manual.flatMap((page) => blocks(page, ["ts", "tsx", "typescript"]));
const imported = [...new Set(code.flatMap(importsOf))].sort();
const installed = installs(readme);

describe("README's install instructions, for the manual's examples", () => {
  it("are read from the file (the parsing finds what it should)", () => {
    expect(code.length).toBeGreaterThan(10);
    expect(imported).toContain("durable-agents/worker");
    expect(imported).toContain("node:url");
    expect(installed.has("durable-agents")).toBe(true);
  });

  it("name every package a TypeScript example imports, other than durable-agents and Node's own", () => {
    const own = (s: string) => s === pkg.name || s.startsWith(`${pkg.name}/`);
    const missing = [...new Set(imported.filter((s) => !own(s) && !isBuiltin(s)).map(packageOf))].filter((name) => !installed.has(name));
    expect(missing).toEqual([]);
  });

  it("name every peer dependency", () => {
    expect(Object.keys(pkg.peerDependencies).filter((name) => !installed.has(name))).toEqual([]);
  });

  it("import only entries the package exports", () => {
    const entries = imported.filter((s) => s === pkg.name || s.startsWith(`${pkg.name}/`)).map((s) => `.${s.slice(pkg.name.length)}`);
    expect(entries.filter((entry) => !(entry in pkg.exports))).toEqual([]);
  });

  it("pin a package durable-agents depends on to the version it depends on", () => {
    const drifted = [...installed].filter(([name, version]) => version !== undefined && /^\d+\.\d+\.\d+$/.test(version) && name in pkg.dependencies && pkg.dependencies[name] !== version);
    expect(drifted).toEqual([]);
  });

  it("pin a peer dependency to a version its range takes (the Temporal packages: ^1.24.0)", () => {
    const parts = (v: string) => v.split(".").map(Number) as [number, number, number];
    const takes = (range: string, version: string) => {
      const caret = /^\^(\d+\.\d+\.\d+)$/.exec(range);
      if (!caret) return true;
      const [min, got] = [parts(caret[1]!), parts(version)];
      return got[0] === min[0] && (got[1] > min[1] || (got[1] === min[1] && got[2] >= min[2]));
    };
    // Every pin, not the last of each name: README names the Temporal packages more than once.
    const pins = [...readme.matchAll(/\b(?:npm (?:install|i)|pnpm add|yarn add)\b([^`#;&\n]*)/g)].flatMap((m) =>
      m[1]!.trim().split(/\s+/).flatMap((spec) => {
        const at = spec.indexOf("@", 1);
        return at === -1 || spec.startsWith("-") ? [] : [[spec.slice(0, at), spec.slice(at + 1)] as const];
      }),
    );
    const pinnedPeers = pins.filter(([name, version]) => version !== undefined && /^\d+\.\d+\.\d+$/.test(version) && name in pkg.peerDependencies);
    expect(pinnedPeers.map(([name]) => name)).toContain("@temporalio/client");
    expect(pinnedPeers.filter(([name, version]) => !takes(pkg.peerDependencies[name]!, version!))).toEqual([]);
  });
});
