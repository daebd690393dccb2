/**
 * A schema as the Standard Schema interface (`~standard`) describes it: what every copy
 * of zod (3.24 and later) carries, and so do other validation libraries.
 */
export interface StandardSchema {
  readonly "~standard": {
    readonly version: number;
    readonly vendor: string;
    validate(value: unknown): StandardResult | Promise<StandardResult>;
    /** Standard JSON Schema: libraries that can describe their schemas as JSON Schema. */
    readonly jsonSchema?: { input(options: { target: string }): Record<string, unknown> };
  };
}

export type StandardResult =
  | { readonly value: unknown; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<{ readonly message: string; readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> }> };

/**
 * Whether `value` is a schema. By its `~standard` property, never `instanceof`: a schema
 * from the user's own copy of zod (or zod/mini) is an instance of another class than
 * the one this package imports.
 */
export function isSchema(value: unknown): value is StandardSchema {
  const standard = (value as { "~standard"?: { validate?: unknown } } | null | undefined)?.["~standard"];
  return typeof standard === "object" && standard !== null && typeof standard.validate === "function";
}
