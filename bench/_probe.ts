import { prompt, startBench, toolLoop } from "./lib.js";
const b = await startBench({ maxTurns: 20, toolResultBytes: 200 });
for (let i = 0; i < 4; i++) for (const which of ["sdk", "bare"] as const) {
  const p = prompt("probe"); b.model.respond(p, toolLoop(20));
  const s = Date.now();
  await (which === "sdk" ? b.runSdk(p) : b.runBare(p));
  console.log(which, i, Date.now() - s);
}
await b.close();
