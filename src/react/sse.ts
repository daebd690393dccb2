/** One Server-Sent Event. */
export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

/**
 * Reads `text/event-stream` bytes as events, after the EventSource rules that matter here:
 * lines end in LF, CRLF or CR, a blank line dispatches, `:` lines are comments (the
 * server's keep-alives: `onActivity` hears them, so a watchdog sees a live connection).
 * `fetch` rather than `EventSource` so callers can send headers (auth) and choose `fetch`.
 */
export async function* readSse(body: ReadableStream<Uint8Array>, onActivity: () => void = () => undefined, signal?: AbortSignal): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  // Not every body ends when its request is aborted (a wrapped or synthetic one): cancelling ends the pending read.
  const cancel = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener("abort", cancel, { once: true });
  const decoder = new TextDecoder();
  let buffer = "";
  let event: SseEvent = { event: "message", data: "" };
  let data: string[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      onActivity();
      buffer += decoder.decode(value, { stream: true });
      const lines = buffer.split(/\r\n|\r|\n/);
      // The last piece may be a line still being received.
      buffer = lines.pop() ?? "";
      for (const line of lines) {
        if (line === "") {
          if (data.length > 0) yield { ...event, data: data.join("\n") };
          event = { event: "message", data: "" };
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "data") data.push(value);
        else if (field === "event") event.event = value;
        else if (field === "id") event.id = value;
      }
    }
  } finally {
    signal?.removeEventListener("abort", cancel);
    cancel();
  }
}
