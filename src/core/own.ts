/**
 * `record[key]` only when `key` is the record's own property. Names a model or a client
 * chose (`constructor`, `__proto__`, `toString`) would otherwise find what every object
 * inherits: a function handed to `proxyActivities` fails the workflow task on every retry.
 * Sandbox-safe.
 */
export function ownEntry<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && record !== null && Object.hasOwn(record, key) ? record[key] : undefined;
}
