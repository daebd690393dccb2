import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, plainJsonProblem } from "../../src/core/json-check.js";

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
};

describe("plainJsonProblem", () => {
  it("accepts any JSON value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(plainJsonProblem(value)).toBeUndefined();
      }),
    );
  });

  it("refuses hostile nesting with a problem instead of overflowing the stack", () => {
    expect(plainJsonProblem(nested(MAX_JSON_DEPTH))).toBeUndefined();
    expect(plainJsonProblem(nested(MAX_JSON_DEPTH + 1))?.problem).toBe(`it is nested deeper than ${MAX_JSON_DEPTH} levels`);
    expect(plainJsonProblem(nested(200_000))?.problem).toMatch(/nested deeper/);
  });

  it("reports the first problem in document order, with its path", () => {
    expect(plainJsonProblem({ a: [1, NaN], b: new Date(0) })).toEqual({ path: "$.a[1]", problem: "NaN is not a finite number" });
    expect(plainJsonProblem({ a: 1, b: new Date(0) })).toEqual({ path: "$.b", problem: "a Date instance is not a plain object" });
    expect(plainJsonProblem([() => 1])).toEqual({ path: "$[0]", problem: "a function is not JSON" });
  });

  it("tells a cycle from an object used twice", () => {
    const shared = { x: 1 };
    expect(plainJsonProblem({ a: shared, b: [shared] })).toBeUndefined();
    const cyclic: Record<string, unknown> = { a: { b: {} } };
    (cyclic.a as { b: Record<string, unknown> }).b.c = cyclic;
    expect(plainJsonProblem(cyclic)).toEqual({ path: "$.a.b.c", problem: "the value refers to itself" });
  });
});
