import { z } from "zod";

/** A posted HTML form, bounded: names, values and repeats. */
export const FormBody = z.record(z.string().max(2000), z.union([z.string().max(100_000), z.array(z.string().max(100_000)).max(1000)]));

/** The posted form as the renderers name their fields: every value a list, `name[]` read as `name`, on an object without a prototype. */
export function submitted(form: z.infer<typeof FormBody>): Record<string, string[]> {
  const values: Record<string, string[]> = Object.create(null);
  for (const [k, v] of Object.entries(form)) values[k.replace(/\[\]$/, "")] = ([] as string[]).concat(v);
  return values;
}
