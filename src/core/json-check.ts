/**
 * Where `value` stops being plain JSON (a Date, a class instance, NaN, a function,
 * a cycle …), or undefined when it is plain JSON throughout. Sandbox-safe.
 */
export function plainJsonProblem(value: unknown, path = "$", seen = new Set<object>()): { path: string; problem: string } | undefined {
  if (value === null || typeof value === "string" || typeof value === "boolean") return undefined;
  if (typeof value === "number") return Number.isFinite(value) ? undefined : { path, problem: `${value} is not a finite number` };
  if (typeof value !== "object") return { path, problem: `a ${typeof value} is not JSON` };
  if (seen.has(value)) return { path, problem: "the value refers to itself" };
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const found = plainJsonProblem(value[i], `${path}[${i}]`, seen);
        if (found) return found;
      }
      return undefined;
    }
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      return { path, problem: `a ${(value as object).constructor?.name ?? "class"} instance is not a plain object` };
    }
    for (const [key, inner] of Object.entries(value)) {
      const found = plainJsonProblem(inner, `${path}.${key}`, seen);
      if (found) return found;
    }
    return undefined;
  } finally {
    seen.delete(value);
  }
}
