import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

/** True for a file this process may execute. */
export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The first of `names` in a directory of `PATH` (names in order, each through every
 * directory), else the first of `wellKnown` that is executable; undefined when none is.
 */
export function findExecutable(names: readonly string[], wellKnown: readonly string[], env: Record<string, string | undefined> = process.env): string | undefined {
  const dirs = (env.PATH ?? "").split(delimiter).filter((dir) => dir !== "");
  for (const name of names) {
    for (const dir of dirs) if (isExecutable(join(dir, name))) return join(dir, name);
  }
  return wellKnown.find(isExecutable);
}
