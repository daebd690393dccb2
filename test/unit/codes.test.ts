import { readFileSync } from "node:fs";
import { ApplicationFailure, ApplicationFailureCategory } from "@temporalio/common";
import { describe, expect, it } from "vitest";
import * as api from "../../src/index.js";
import { CODE_TABLE, DurableAgentsError, ErrorCode, fromFailure, isErrorCode } from "../../src/index.js";
import { errorsPagePath, renderCodeTable, withCodeTable } from "../../scripts/codes-table.js";

const codes = Object.keys(CODE_TABLE);

// Every error class the public entry exports, by its code.
const exported = new Map(
  Object.values(api)
    .filter((v): v is typeof DurableAgentsError & { code: string } => typeof v === "function" && typeof (v as { code?: unknown }).code === "string")
    .map((cls) => [cls.code, cls]),
);

// Fields of any shape: every property is another such value, and it prints as "x".
const anything: object = new Proxy(() => undefined, {
  get: (_t, key) => (key === Symbol.toPrimitive ? () => "x" : key === Symbol.iterator ? [][Symbol.iterator] : key === "toJSON" ? () => "x" : anything),
});

describe("the code table", () => {
  it("is what docs/reference/errors.md shows (npm run codes)", () => {
    const page = readFileSync(errorsPagePath, "utf8");
    expect(withCodeTable(page, renderCodeTable())).toBe(page);
  });

  it("has exactly one exported error class per code, and ErrorCode names each", () => {
    expect([...exported.keys()].sort()).toEqual([...codes].sort());
    expect(Object.values(ErrorCode).sort()).toEqual([...codes].sort());
  });

  it.each(codes)("%s travels as the table says (retry, category) and comes back typed", (code) => {
    const Cls = exported.get(code)! as unknown as new (fields: object) => DurableAgentsError;
    const failure = new Cls(anything).toFailure();
    const row = CODE_TABLE[code as keyof typeof CODE_TABLE];
    expect(failure.type).toBe(code);
    expect(failure.nonRetryable).toBe(!row.retryable);
    expect(failure.category ?? undefined).toBe(row.benign ? ApplicationFailureCategory.BENIGN : undefined);
    expect(fromFailure(failure)?.code).toBe(code);
  });

  it("does not mistake inherited names for codes", () => {
    for (const type of ["constructor", "__proto__", "toString", "hasOwnProperty", "AI9999"]) {
      expect(isErrorCode(type)).toBe(false);
      expect(fromFailure(ApplicationFailure.create({ type, message: "x" }))).toBeUndefined();
    }
  });
});
