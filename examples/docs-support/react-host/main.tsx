/**
 * Mounts one of the docs' React examples (examples/docs/*.tsx), named by `?example=`, with
 * what the page's query names: `thread`, `run`, and `user` (the bearer token the examples send).
 */
import { Suspense, type ReactNode } from "react";
import { createRoot } from "react-dom/client";

const params = new URLSearchParams(location.search);
const examples: Record<string, () => Promise<ReactNode>> = {
  "chat-view": async () => {
    const { ChatView } = await import("../../docs/chat-view.js");
    return <ChatView threadId={params.get("thread")!} />;
  },
  "use-chat": async () => {
    const { Chat } = await import("../../docs/use-chat.js");
    return <Chat />;
  },
  "use-chat-run": async () => {
    const { RunView } = await import("../../docs/use-chat-run.js");
    return <RunView />;
  },
};

const mount = examples[params.get("example") ?? ""];
createRoot(document.getElementById("root")!).render(
  mount ? <Suspense fallback={<p>loading</p>}>{await mount()}</Suspense> : <p>no such example: {params.get("example")}</p>,
);
