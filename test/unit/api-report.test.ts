/**
 * The released-API contract (etc/api-report.json): a public export that appears, disappears
 * or changes kind fails here until the report is regenerated, so the change is a diff a
 * reviewer sees rather than a side effect of a refactor.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { apiReport, publicEntries, reportPath, type ApiReport } from "../../scripts/api-report.js";

/** What differs between two reports, entry by entry, as lines a person reads. */
function differences(committed: ApiReport, actual: ApiReport): string[] {
  const lines: string[] = [];
  for (const entry of new Set([...Object.keys(committed), ...Object.keys(actual)])) {
    const was = committed[entry] ?? {};
    const is = actual[entry] ?? {};
    for (const name of Object.keys(is)) if (!(name in was)) lines.push(`${entry}: + ${name} (${is[name]})`);
    for (const name of Object.keys(was)) if (!(name in is)) lines.push(`${entry}: - ${name} (${was[name]})`);
    for (const name of Object.keys(is)) if (name in was && was[name] !== is[name]) lines.push(`${entry}: ${name} is now ${is[name]}, was ${was[name]}`);
  }
  return lines;
}

describe("the public API report", () => {
  const actual = apiReport();

  it("covers every entry package.json exports, each with names", () => {
    expect(Object.keys(actual).sort()).toEqual([...publicEntries().keys()].sort());
    for (const names of Object.values(actual)) expect(Object.keys(names).length).toBeGreaterThan(0);
    expect(actual["durable-agents"]!.AgentClient).toBe("class");
    expect(actual["durable-agents/worker"]!.createAgentWorker).toBe("function");
  });

  it("is what etc/api-report.json records", () => {
    const committed = JSON.parse(readFileSync(reportPath, "utf8")) as ApiReport;
    const changed = differences(committed, actual);
    expect(
      changed,
      `the public exports changed:\n${changed.join("\n")}\nIf this is intended, run \`npm run api-report\` and commit etc/api-report.json.`,
    ).toEqual([]);
  });

  it("names an added, a removed and a changed export", () => {
    const was = { e: { a: "function", b: "class" } };
    expect(differences(was, { e: { a: "const", c: "type" } })).toEqual(["e: + c (type)", "e: - b (class)", "e: a is now const, was function"]);
  });
});
