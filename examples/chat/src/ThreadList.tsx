import { useEffect, useMemo, useState } from "react";
import { AgentHttpClient } from "../../../src/react.js";
import { baseUrl, headers } from "./session.js";

type Summary = { threadId: string; createdAt: string };

export function ThreadList({ selected, onSelect }: { selected: string | undefined; onSelect: (threadId: string) => void }) {
  const http = useMemo(() => new AgentHttpClient({ baseUrl, headers }).threads, []);
  const [threads, setThreads] = useState<Summary[]>([]);
  const [error, setError] = useState<string>();

  const refresh = () =>
    http.listThreads({ limit: 50 }).then(
      (page) => setThreads(page.threads),
      (err: Error) => setError(err.message),
    );
  useEffect(() => void refresh(), []);

  const start = async () => {
    const { threadId } = await http.createThread();
    await refresh();
    onSelect(threadId);
  };

  return (
    <nav className="threads">
      <button type="button" onClick={() => void start()}>
        New chat
      </button>
      {error && <p className="error">{error}</p>}
      <ul>
        {threads.map((t) => (
          <li key={t.threadId}>
            <a href={`#${encodeURIComponent(t.threadId)}`} aria-current={t.threadId === selected ? "page" : undefined}>
              {t.threadId.slice(0, 18)}
              <small>{new Date(t.createdAt).toLocaleString()}</small>
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
