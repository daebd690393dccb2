/**
 * The released-API contract: every name each public entry (package.json "exports") exports,
 * with its kind, in etc/api-report.json.
 *
 *   npm run api-report     # rewrites etc/api-report.json from the entries' sources
 *
 * `test/unit/api-report.test.ts` fails when an export appears, disappears or changes kind
 * without the report being updated, so a change of the public surface is a reviewed diff.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = fileURLToPath(new URL("..", import.meta.url));
export const reportPath = join(root, "etc/api-report.json");

/** Entry name (`durable-agents/worker`) → its source file, from package.json "exports". */
export function publicEntries(): Map<string, string> {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { name: string; exports: Record<string, { types: string }> };
  return new Map(
    Object.entries(pkg.exports).map(([subpath, entry]) => [
      subpath === "." ? pkg.name : `${pkg.name}${subpath.slice(1)}`,
      join(root, entry.types.replace(/^\.\/dist\//, "").replace(/\.d\.ts$/, ".ts")),
    ]),
  );
}

const KINDS: [ts.SymbolFlags, string][] = [
  [ts.SymbolFlags.Class, "class"],
  [ts.SymbolFlags.Function, "function"],
  [ts.SymbolFlags.Enum, "enum"],
  [ts.SymbolFlags.Variable, "const"],
  [ts.SymbolFlags.Interface, "interface"],
  [ts.SymbolFlags.TypeAlias, "type"],
  [ts.SymbolFlags.Module, "namespace"],
];

export type ApiReport = Record<string, Record<string, string>>;

/** Each entry's exported names and their kinds (`class`, `function`, `const`, `interface`, `type`, …), sorted. */
export function apiReport(): ApiReport {
  const entries = publicEntries();
  const config = ts.getParsedCommandLineOfConfigFile(join(root, "tsconfig.build.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  // Only the package's own files, unresolved imports of other packages left alone: naming
  // what is exported needs the re-export chains, not the types behind them, and reading the
  // dependencies' declarations would take most of a minute.
  const program = ts.createProgram(config!.fileNames, { ...config!.options, noEmit: true, noResolve: true, types: [], noLib: true });
  const checker = program.getTypeChecker();
  const report: ApiReport = {};
  for (const [entry, file] of entries) {
    const source = program.getSourceFile(file);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!moduleSymbol) throw new Error(`${entry}: cannot read ${file}`);
    const names: Record<string, string> = {};
    for (const exported of checker.getExportsOfModule(moduleSymbol).sort((a, b) => a.name.localeCompare(b.name))) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const kinds = KINDS.filter(([flag]) => symbol.flags & flag).map(([, kind]) => kind);
      names[exported.name] = kinds.join(" + ") || "unknown";
    }
    report[entry] = names;
  }
  return report;
}

export const renderReport = (report: ApiReport) => `${JSON.stringify(report, null, 2)}\n`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(reportPath, renderReport(apiReport()));
  console.log(`wrote ${reportPath}`);
}
