/**
 * The package compiled as `npm run build` emits it, for tests that run the `durable-agents`
 * command the way it ships: TypeScript's own emit of each file of tsconfig.build.json (and of
 * the files they import), one file at a time. Type errors are `npm run typecheck`'s business;
 * without a type check the compile takes a couple of seconds instead of most of a minute.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = fileURLToPath(new URL("..", import.meta.url));

// Written last into the output: the compiled sources and a hash of them, so a later compile of
// the same sources can be skipped, and a compile that stopped half way is never taken for done.
const STAMP = ".sources.json";

/**
 * Compiles the package into `outDir` (emptied first), laid out as in dist/; returns `outDir`.
 * With `reuse`, an `outDir` compiled from the same sources (by content, with the same
 * TypeScript and the same compiler) is kept as it is.
 */
export function compilePackage(outDir: string, { reuse = false }: { reuse?: boolean } = {}): string {
  const config = ts.getParsedCommandLineOfConfigFile(join(root, "tsconfig.build.json"), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    },
  });
  if (!config) throw new Error("tsconfig.build.json could not be read");
  // The package is `"type": "module"`: what NodeNext emits for it is ES modules.
  const compilerOptions = { ...config.options, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, declaration: false, sourceMap: false };
  if (reuse && compiledFrom(outDir, config.fileNames)) return outDir;
  rmSync(outDir, { recursive: true, force: true });
  const pending = [...config.fileNames];
  const seen = new Set(pending);
  const sources = new Map<string, string>();
  while (pending.length > 0) {
    const file = pending.pop()!;
    const source = readFileSync(file, "utf8");
    sources.set(file, source);
    // tsc emits the files the included ones import too (scripts/ helpers, say).
    for (const { fileName } of ts.preProcessFile(source, true, true).importedFiles) {
      if (!fileName.startsWith(".")) continue;
      const imported = resolve(dirname(file), fileName.replace(/\.js$/, ".ts"));
      if (imported.endsWith(".ts") && !seen.has(imported) && ts.sys.fileExists(imported)) {
        seen.add(imported);
        pending.push(imported);
      }
    }
    const out = outputOf(outDir, file);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, ts.transpileModule(source, { compilerOptions, fileName: file }).outputText);
  }
  writeFileSync(join(outDir, STAMP), JSON.stringify({ files: [...sources.keys()].sort(), hash: hashOf(sources) }));
  return outDir;
}

const outputOf = (outDir: string, file: string) => join(outDir, relative(root, file)).replace(/\.tsx?$/, ".js");

/** Whether `outDir` holds the compile of `fileNames` and the files they imported then, as they read now. */
function compiledFrom(outDir: string, fileNames: string[]): boolean {
  let stamp: { files: string[]; hash: string };
  try {
    stamp = JSON.parse(readFileSync(join(outDir, STAMP), "utf8")) as typeof stamp;
  } catch {
    return false;
  }
  // A file added since is a difference; a file imported then is read again (an import added
  // since changed the file that has it).
  const sources = new Map<string, string>();
  try {
    for (const file of new Set([...stamp.files, ...fileNames])) sources.set(file, readFileSync(file, "utf8"));
  } catch {
    return false;
  }
  return hashOf(sources) === stamp.hash && stamp.files.every((file) => existsSync(outputOf(outDir, file)));
}

function hashOf(sources: Map<string, string>): string {
  const hash = createHash("sha256");
  // The compiler and this file decide the output as much as the sources do.
  hash.update(`${ts.version}\0${readFileSync(fileURLToPath(import.meta.url), "utf8")}\0${readFileSync(join(root, "tsconfig.json"), "utf8")}\0${readFileSync(join(root, "tsconfig.build.json"), "utf8")}\0`);
  for (const file of [...sources.keys()].sort()) hash.update(`${relative(root, file)}\0${sources.get(file)}\0`);
  return hash.digest("hex");
}
