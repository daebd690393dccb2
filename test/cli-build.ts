/**
 * The package compiled as `npm run build` emits it, for tests that run the `durable-agents`
 * command the way it ships: TypeScript's own emit of each file of tsconfig.build.json (and of
 * the files they import), one file at a time. Type errors are `npm run typecheck`'s business;
 * without a type check the compile takes a couple of seconds instead of most of a minute.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Compiles the package into `outDir` (emptied first), laid out as in dist/; returns `outDir`. */
export function compilePackage(outDir: string): string {
  const config = ts.getParsedCommandLineOfConfigFile(join(root, "tsconfig.build.json"), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    },
  });
  if (!config) throw new Error("tsconfig.build.json could not be read");
  // The package is `"type": "module"`: what NodeNext emits for it is ES modules.
  const compilerOptions = { ...config.options, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, declaration: false, sourceMap: false };
  rmSync(outDir, { recursive: true, force: true });
  const pending = [...config.fileNames];
  const seen = new Set(pending);
  while (pending.length > 0) {
    const file = pending.pop()!;
    const source = readFileSync(file, "utf8");
    // tsc emits the files the included ones import too (scripts/ helpers, say).
    for (const { fileName } of ts.preProcessFile(source, true, true).importedFiles) {
      if (!fileName.startsWith(".")) continue;
      const imported = resolve(dirname(file), fileName.replace(/\.js$/, ".ts"));
      if (imported.endsWith(".ts") && !seen.has(imported) && ts.sys.fileExists(imported)) {
        seen.add(imported);
        pending.push(imported);
      }
    }
    const out = join(outDir, relative(root, file)).replace(/\.tsx?$/, ".js");
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, ts.transpileModule(source, { compilerOptions, fileName: file }).outputText);
  }
  return outDir;
}
