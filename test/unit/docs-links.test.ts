/**
 * The manual is README.md plus the pages under docs/, linked to each other: a relative link
 * that points at a file that is not there, or at a heading a page does not have, fails here
 * (moving a section between pages is how that happens).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { docFiles, root } from "../../scripts/docs-snippets.js";

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");

/** The anchors a Markdown page offers: one per heading, outside code fences. */
function anchorsOf(text: string): Set<string> {
  const outsideFences = text.replace(/^( *)```[\s\S]*?^\1```/gm, "");
  return new Set([...outsideFences.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));
}

/** Every `[text](target)` outside code, with the target as written. */
function linksOf(text: string): string[] {
  const prose = text.replace(/^( *)```[\s\S]*?^\1```/gm, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

/** What is wrong with a relative link from `page`, or undefined. */
function problem(page: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto:
  const [path, anchor] = target.split("#") as [string, string | undefined];
  const file = path === "" ? page : normalize(join(dirname(page), path));
  if (!existsSync(join(root, file))) return `${page}: ${target} (no file ${file})`;
  if (anchor !== undefined && file.endsWith(".md") && !anchorsOf(readFileSync(join(root, file), "utf8")).has(anchor)) {
    return `${page}: ${target} (${file} has no heading #${anchor})`;
  }
  return undefined;
}

describe("links between README and docs/", () => {
  const pages = docFiles();

  it("are found", () => {
    expect(pages.flatMap((page) => linksOf(readFileSync(join(root, page), "utf8"))).length).toBeGreaterThan(20);
  });

  it("each point at a file (and heading) that exists", () => {
    const broken = pages.flatMap((page) => linksOf(readFileSync(join(root, page), "utf8")).map((t) => problem(page, t)).filter((p) => p !== undefined));
    expect(broken).toEqual([]);
  });

  it("tells a missing file and a missing heading from good links", () => {
    expect(problem("README.md", "docs/agents.md")).toBeUndefined();
    expect(problem("README.md", "https://temporal.io")).toBeUndefined();
    expect(problem("README.md", "docs/nope.md")).toMatch(/no file docs\/nope\.md/);
    expect(problem("docs/agents.md", "../README.md#quickstart")).toBeUndefined();
    expect(problem("docs/agents.md", "../README.md#no-such-heading")).toMatch(/no heading/);
    expect(slug("Chat UIs: React hooks and `useChat`")).toBe("chat-uis-react-hooks-and-usechat");
  });
});
