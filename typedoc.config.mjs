// @ts-check
/**
 * The API reference (`npm run docs`, into the git-ignored dist/api/): one module per public
 * entry, read from package.json "exports" so a new entry cannot be left out. Warnings fail the
 * build, and `npm test` runs it.
 */
import { readFileSync } from "node:fs";

const pkg = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8"));

/** `./dist/src/worker.d.ts` → `./src/worker.ts`: each entry's source. */
const sourceOf = (types) => types.replace(/^\.\/dist\//, "./").replace(/\.d\.ts$/, ".ts");

/** @type {Partial<import("typedoc").TypeDocOptions>} */
const config = {
  name: pkg.name,
  entryPoints: Object.values(pkg.exports).map((entry) => sourceOf(entry.types)),
  tsconfig: "./tsconfig.build.json",
  out: "./dist/api",
  readme: "none",
  treatWarningsAsErrors: true,
  // No links to source lines: they need a hosted git remote, which clones and CI may lack (a warning, so a failure).
  disableSources: true,
  // `npm test` type-checks first; the reference need not do it again.
  skipErrorChecking: true,
  // No `intentionallyNotExported`: every type a public signature names is exported (the
  // API report refuses to be written otherwise), so a warning about one fails the build.
  excludePrivate: true,
  excludeInternal: true,
};

export default config;
