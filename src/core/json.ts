/** Plain JSON: what may cross into workflow state, history and deferral records. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/**
 * Who a run acts for. Plain JSON, persisted with the run; `id` is what logs and
 * authorization hooks usually key on.
 */
export interface Principal {
  id: string;
  [key: string]: JsonValue;
}
