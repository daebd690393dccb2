/**
 * The deepest nesting a plain-JSON value may have. Deeper input is refused with a problem
 * rather than checked: the check, and every JSON encoding after it, would exhaust the stack.
 */
export const MAX_JSON_DEPTH = 512;

/**
 * Where `value` stops being plain JSON (a Date, a class instance, NaN, a function,
 * a cycle, nesting deeper than MAX_JSON_DEPTH …), or undefined when it is plain JSON
 * throughout. Iterative, so hostile nesting cannot overflow the stack. Sandbox-safe.
 */
export function plainJsonProblem(value: unknown, path = "$"): { path: string; problem: string } | undefined {
  // Ancestors only: the same object twice side by side is fine, inside itself is a cycle.
  const ancestors = new Set<object>();
  type Step = { kind: "visit"; value: unknown; path: string; depth: number } | { kind: "leave"; value: object };
  const stack: Step[] = [{ kind: "visit", value, path, depth: 0 }];
  while (stack.length > 0) {
    const step = stack.pop()!;
    if (step.kind === "leave") {
      ancestors.delete(step.value);
      continue;
    }
    const { value: v, path: at, depth } = step;
    if (v === null || typeof v === "string" || typeof v === "boolean") continue;
    if (typeof v === "number") {
      if (Number.isFinite(v)) continue;
      return { path: at, problem: `${v} is not a finite number` };
    }
    if (typeof v !== "object") return { path: at, problem: `a ${typeof v} is not JSON` };
    if (ancestors.has(v)) return { path: at, problem: "the value refers to itself" };
    if (depth >= MAX_JSON_DEPTH) return { path: at.length > 200 ? `${at.slice(0, 200)}…` : at, problem: `it is nested deeper than ${MAX_JSON_DEPTH} levels` };
    let children: Array<[string, unknown]>;
    if (Array.isArray(v)) {
      children = v.map((inner, i) => [`${at}[${i}]`, inner]);
    } else {
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) {
        return { path: at, problem: `a ${(v as object).constructor?.name ?? "class"} instance is not a plain object` };
      }
      children = Object.entries(v).map(([key, inner]) => [`${at}.${key}`, inner]);
    }
    ancestors.add(v);
    stack.push({ kind: "leave", value: v });
    // Reversed onto the stack, so the first problem in document order is the one reported.
    for (let i = children.length - 1; i >= 0; i--) stack.push({ kind: "visit", path: children[i]![0], value: children[i]![1], depth: depth + 1 });
  }
  return undefined;
}
