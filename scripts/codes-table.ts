/**
 * Renders the error reference's table from the code table, so the two cannot drift:
 *
 *   npm run codes          # rewrites the table between the codes markers in docs/reference/errors.md
 *
 * `test/unit/codes.test.ts` fails when the page holds anything else.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { CODE_TABLE } from "../src/core/errors/codes.js";

const START = "<!-- codes:start -->";
const END = "<!-- codes:end -->";

export function renderCodeTable(): string {
  const rows = Object.entries(CODE_TABLE).map(
    ([code, info]) => `| ${code} | ${info.http} | ${info.benign ? "yes" : ""} | ${info.when} |`,
  );
  return ["| code | HTTP | benign | when |", "|---|---|---|---|", ...rows].join("\n");
}

/** The page's text with the table between the markers replaced by `table`. */
export function withCodeTable(page: string, table: string): string {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/reference/errors.md needs the ${START} and ${END} markers`);
  return `${page.slice(0, start + START.length)}\n${table}\n${page.slice(end)}`;
}

export const errorsPagePath = fileURLToPath(new URL("../docs/reference/errors.md", import.meta.url));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(errorsPagePath, withCodeTable(readFileSync(errorsPagePath, "utf8"), renderCodeTable()));
}
