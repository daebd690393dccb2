/**
 * Puts each TypeScript snippet of README.md and docs/ in from the file it names, so every
 * example a reader copies is a file that `tsc --noEmit` and eslint check and that
 * `test/docs-examples.test.ts` runs against a dev server and the scripted model:
 *
 *   <!-- snippet: examples/docs/quickstart.ts -->
 *   ```ts
 *   …the file, from the line after `// ---cut---` when it has one, to the line before `// ---end---`…
 *   ```
 *   <!-- /snippet -->
 *
 *   npm run docs:snippets   # rewrites every block between such markers from its file
 *
 * What a file holds above `// ---cut---` (the reader's own services, such as a mailer, here
 * small working stand-ins) and below `// ---end---` (what shows the example worked, and the
 * shutdown) runs but is not shown. `test/unit/docs-snippets.test.ts` fails when a block
 * differs from its file, or when a ts/tsx block has no marker.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { extname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("..", import.meta.url));

const MARKER = /<!-- snippet: (\S+) -->\n[\s\S]*?<!-- \/snippet -->/g;
const CUT = "// ---cut---\n";
const END = "// ---end---\n";

/** README.md and every Markdown file under docs/, as paths relative to the repository. */
export function docFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith(".md") ? [join(dir, e.name)] : [],
    );
  return ["README.md", ...walk("docs")].map((f) => relative(root, join(root, f)));
}

/** What a snippet file shows: its text between the cut line and the end line (or all of it), without the final newline. */
export function shownPart(source: string): string {
  const cut = source.indexOf(CUT);
  const from = cut < 0 ? 0 : cut + CUT.length;
  const end = source.indexOf(END, from);
  return source.slice(from, end < 0 ? undefined : end).replace(/\n+$/, "");
}

const fenceOf = (file: string) => (extname(file) === ".tsx" ? "tsx" : "ts");

/** `markdown` with every marked block rewritten from its file (`read` gives a file's text). */
export function withSnippets(markdown: string, read: (file: string) => string = (f) => readFileSync(join(root, f), "utf8")): string {
  return markdown.replace(MARKER, (_all, file: string) => `<!-- snippet: ${file} -->\n\`\`\`${fenceOf(file)}\n${shownPart(read(file))}\n\`\`\`\n<!-- /snippet -->`);
}

/** The ts/tsx fenced blocks of `markdown` that no snippet marker wraps, by line number. */
export function unmarkedBlocks(markdown: string): number[] {
  const marked = markdown.replace(MARKER, (all) => all.replace(/[^\n]/g, " "));
  const lines: number[] = [];
  const fence = /^ *```(ts|tsx|typescript)\b/gm;
  for (const m of marked.matchAll(fence)) lines.push(marked.slice(0, m.index).split("\n").length);
  return lines;
}

/** The snippet files `markdown` names. */
export function snippetFiles(markdown: string): string[] {
  return [...markdown.matchAll(MARKER)].map((m) => m[1]!);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const file of docFiles()) {
    const before = readFileSync(join(root, file), "utf8");
    const after = withSnippets(before);
    if (after !== before) {
      writeFileSync(join(root, file), after);
      console.log(`updated ${file}`);
    }
  }
}
