/**
 * Every TypeScript example in README.md and docs/ is a file under examples/docs/ that the
 * type-check and lint cover and test/docs-examples.test.ts runs, put into the page by
 * `npm run docs:snippets`: a page whose block drifted from its file, or a ts block written
 * straight into a page, fails here.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { docFiles, root, snippetFiles, unmarkedBlocks, withSnippets } from "../../scripts/docs-snippets.js";

const pages = docFiles().map((file) => ({ file, text: readFileSync(join(root, file), "utf8") }));

describe("the docs' TypeScript snippets", () => {
  it("are found (README and docs/ hold marked snippets)", () => {
    expect(pages.map((p) => p.file)).toContain("README.md");
    expect(pages.flatMap((p) => snippetFiles(p.text)).length).toBeGreaterThan(0);
  });

  it.each(pages.map((p) => [p.file, p.text] as const))("%s: each marked block is its file (npm run docs:snippets)", (file, text) => {
    const missing = snippetFiles(text).filter((f) => !existsSync(join(root, f)));
    expect(missing, `${file} names snippet files that do not exist`).toEqual([]);
    expect(snippetFiles(text).filter((f) => !f.startsWith("examples/docs/")), "snippets live under examples/docs/").toEqual([]);
    expect(withSnippets(text), `${file} differs from its snippet files: run npm run docs:snippets`).toBe(text);
  });

  it.each(pages.map((p) => [p.file, p.text] as const))("%s: has no ts block outside a snippet marker", (file, text) => {
    expect(unmarkedBlocks(text), `ts/tsx blocks at these lines of ${file} are not from examples/docs/ (wrap them in <!-- snippet: … -->)`).toEqual([]);
  });

  it("are each shown by a page (no file under examples/docs/ is left behind)", () => {
    const shown = new Set(pages.flatMap((p) => snippetFiles(p.text)));
    expect(readdirSync(join(root, "examples/docs")).map((f) => `examples/docs/${f}`).filter((f) => !shown.has(f))).toEqual([]);
  });

  it("keep README an overview: at most 12 KB, its quickstart at most 30 lines", () => {
    const readme = pages.find((p) => p.file === "README.md")!.text;
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(12 * 1024);
    const quickstart = /<!-- snippet: examples\/docs\/quickstart\.ts -->\n```ts\n([\s\S]*?)\n```/.exec(readme);
    expect(quickstart, "README shows examples/docs/quickstart.ts").not.toBeNull();
    expect(quickstart![1]!.split("\n").length).toBeLessThanOrEqual(30);
  });

  it("open README with its two commands, then the quickstart, then how to install: Go and Chromium come after", () => {
    const readme = pages.find((p) => p.file === "README.md")!.text;
    const sections = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
    expect(sections.slice(0, 3)).toEqual(["Two commands", "Quickstart", "Install"]);
    const first = /```bash\n([\s\S]*?)```/.exec(readme)!;
    expect(readme.indexOf("## Two commands")).toBeLessThan(first.index);
    const commands = first[1]!
      .split("\n")
      .map((line) => line.replace(/#.*$/, "").trim())
      .filter(Boolean);
    expect(commands).toEqual(["npm ci && npm run demo", "npm test"]);
    // CI runs the test command README gives, on a fresh install.
    const ci = readFileSync(join(root, ".ci/run"), "utf8").split("\n").map((line) => line.trim());
    expect(ci.indexOf(commands[1]!)).toBeGreaterThan(ci.indexOf("npm ci --no-audit --no-fund"));
    expect(ci.indexOf("npm ci --no-audit --no-fund")).toBeGreaterThanOrEqual(0);
    // The quickstart awaits at top level: pasted into a .ts file of a project that is not an
    // ES module, tsx refuses it, so the file it is pasted into is an .mts.
    expect(readme).toMatch(/into `quickstart\.mts`/);
    expect(readme).toMatch(/npx tsx quickstart\.mts/);
    // What a newcomer reads before running anything mentions no toolchain to install.
    const beforeInstall = readme.slice(0, readme.indexOf("## Install"));
    expect(beforeInstall).not.toMatch(/\bGo\b|Chromium|apt-get|brew /);
  });

  it("tells a drifted block and an unmarked one apart from a good page", () => {
    const read = () => "const mailer = {};\n// ---cut---\nconst x = 1;\n// ---end---\nconsole.log(x, mailer);\n";
    const good = "<!-- snippet: examples/docs/x.ts -->\n```ts\nconst x = 1;\n```\n<!-- /snippet -->\n";
    expect(withSnippets(good, read)).toBe(good);
    expect(withSnippets(good.replace("x = 1", "x = 2"), read)).toBe(good);
    expect(unmarkedBlocks(good)).toEqual([]);
    expect(unmarkedBlocks(`${good}\ntext\n\n  \`\`\`tsx\n<App />\n  \`\`\`\n`)).toEqual([9]);
  });
});
