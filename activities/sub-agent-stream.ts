import type { AgentModelCallInput } from "../src/core/contracts.js";
import type { ModelDelta } from "../src/core/model.js";
import { jsonBytes } from "../src/core/payload-size.js";
import type { SubAgentProgress } from "../src/core/thread-contracts.js";
import { MAX_PROGRESS_BYTES } from "../src/core/tool-progress.js";
import type { AnswerStream } from "./delta-publisher.js";
import type { StreamSettings } from "./settings.js";
import { progressSender } from "./tool-progress.js";

/** Room kept below `MAX_PROGRESS_BYTES` for the entry's other fields. */
const ENTRY_ROOM = 1024;

/**
 * A thread's sub-agent's answer, shown to the thread's readers while it is written: the text
 * so far, as `tool-progress` entries of the call that started the sub-agent, throttled as a
 * tool's progress is. Only on a stream transport (no signal, no history, no billed action);
 * undefined without one, or when the model call is not a joined sub-agent's.
 */
export function joinedAnswer(input: AgentModelCallInput, stream: false | StreamSettings | undefined): AnswerStream | undefined {
  const join = input.joinStream;
  if (!join || !stream || stream.transport === "workflow") return undefined;
  const sender = progressSender(stream.transport, join.threadId, { runId: join.runId });
  const base = { agent: input.agentId, runId: input.workflowId, answer: input.baseLength + input.delta.length };
  let text = "";
  let truncated = false;
  const send = () => {
    const data: SubAgentProgress = { ...base, text, ...(truncated ? { truncated: true as const } : {}) };
    sender.send({ seq: 0, type: "tool-progress", toolCallId: join.toolCallId, toolName: join.toolName, data: data as never, at: new Date().toISOString() });
  };
  return {
    push(delta: ModelDelta) {
      if (delta.kind !== "text" || delta.text === "" || truncated) return;
      if (jsonBytes(text + delta.text, MAX_PROGRESS_BYTES) > MAX_PROGRESS_BYTES - ENTRY_ROOM) truncated = true;
      else text += delta.text;
      send();
    },
    // A fallback model answers from the start: readers see its text replace the first one's.
    restart() {
      text = "";
      truncated = false;
      send();
    },
    // The answer's last words reach readers too; the call's result follows as the record.
    close: () => Promise.resolve(sender.close({ flush: true })),
  };
}
