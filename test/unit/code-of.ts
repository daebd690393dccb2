/** The error code an ApplicationFailure carries (`type`), or what was thrown when it is not one. */
export async function codeOf(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return (err as { type?: string }).type ?? err;
  }
  return "no error";
}
