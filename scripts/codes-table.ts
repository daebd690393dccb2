/**
 * Renders the README's error table from the code table, so the two cannot drift:
 *
 *   npm run codes          # rewrites the table between the codes markers in README.md
 *
 * `test/unit/codes.test.ts` fails when README.md holds anything else.
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

/** README.md's text with the table between the markers replaced by `table`. */
export function withCodeTable(readme: string, table: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md needs the ${START} and ${END} markers`);
  return `${readme.slice(0, start + START.length)}\n${table}\n${readme.slice(end)}`;
}

export const readmePath = fileURLToPath(new URL("../README.md", import.meta.url));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(readmePath, withCodeTable(readFileSync(readmePath, "utf8"), renderCodeTable()));
}
