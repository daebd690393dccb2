import { useEffect, useState } from "react";
import { ApprovalInbox } from "./ApprovalInbox.js";
import { ChatView } from "./ChatView.js";
import { ThreadList } from "./ThreadList.js";
import { UseChatView } from "./UseChatView.js";
import { isManager, user, view } from "./session.js";

/** The selected thread lives in the address's hash, so a reload (or a link) opens it again. */
function useSelectedThread(): [string | undefined, (id: string) => void] {
  const read = () => decodeURIComponent(location.hash.slice(1)) || undefined;
  const [threadId, setThreadId] = useState(read);
  useEffect(() => {
    const onHash = () => setThreadId(read());
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, []);
  return [threadId, (id) => (location.hash = encodeURIComponent(id))];
}

export function App() {
  const [threadId, select] = useSelectedThread();
  return (
    <div className="app">
      <aside>
        <p className="who">
          Signed in as <strong>{user}</strong>
          {isManager ? " (manager)" : ""}
        </p>
        <ThreadList selected={threadId} onSelect={select} />
        {isManager && <ApprovalInbox />}
      </aside>
      <main>
        {!threadId && <p className="hint">Pick a thread or start a new chat.</p>}
        {threadId && (view === "usechat" ? <UseChatView key={threadId} threadId={threadId} /> : <ChatView key={threadId} threadId={threadId} />)}
      </main>
    </div>
  );
}
