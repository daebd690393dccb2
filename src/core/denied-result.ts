/** What the model reads as the result of a call whose deferral someone denied (`deferrals.deny`), unless `onDenied` answers instead. */
export function deniedResult(reason: string, by: string | undefined): string {
  return `Error: this request was denied${by ? ` by ${by}` : ""}: ${reason}. Do not retry it as it was; tell the user, or ask differently.`;
}
