import proto from "@temporalio/proto";
import { prompt, startBench, toolLoop } from "./lib.js";
const { EventType } = proto.temporal.api.enums.v1;
const b = await startBench({ maxTurns: 20, toolResultBytes: 200 });
const agg = { sdk: new Map<string, number[]>(), bare: new Map<string, number[]>() };
const e2e = { sdk: [] as number[], bare: [] as number[] };
for (let i = 0; i < 8; i++) for (const which of ["sdk", "bare"] as const) {
  const p = prompt("probe"); b.model.respond(p, toolLoop(20));
  const s = Date.now();
  const id = await (which === "sdk" ? b.runSdk(p) : b.runBare(p));
  if (i < 2) continue;
  e2e[which].push(Date.now() - s);
  const ev = (await b.client.workflow.getHandle(id).fetchHistory()).events ?? [];
  const ts = (e: any) => Number(e.eventTime.seconds) * 1000 + (e.eventTime.nanos ?? 0) / 1e6;
  let actIdx = 0; let lastAct = "";
  for (let k = 1; k < ev.length; k++) {
    const a = EventType[ev[k-1]!.eventType!]!.slice(11), c = EventType[ev[k]!.eventType!]!.slice(11);
    if (c === "ACTIVITY_TASK_SCHEDULED") { actIdx++; lastAct = actIdx % 2 ? "model" : "tool"; }
    const key = `${a}->${c}${c.startsWith("ACTIVITY") || a.startsWith("ACTIVITY") ? ` [${lastAct}]` : ""}`;
    (agg[which].get(key) ?? agg[which].set(key, []).get(key)!).push(ts(ev[k]) - ts(ev[k-1]));
  }
}
for (const which of ["sdk", "bare"] as const) {
  console.log(which, "e2e", e2e[which].join(" "));
  for (const [k, v] of agg[which]) if (v.length > 10) console.log("   ", k.padEnd(70), String(v.length).padStart(4), "avg", (v.reduce((a, c) => a + c, 0) / v.length).toFixed(2));
}
await b.close();
