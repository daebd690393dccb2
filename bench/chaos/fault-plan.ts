/** The soak's schedule of infrastructure faults, drawn up front from its seed. */
import { between, prng } from "./random.js";

export interface FaultAt {
  atSec: number;
  kind: "worker-sigkill" | "server-restart" | "connection-drop";
}

/** A fault every 10–25 s, the first 5–15 s in, none in the last 10 s: half worker kills, a fifth server restarts, the rest connection drops. */
export function faultPlan(seed: number, seconds: number): FaultAt[] {
  const random = prng(seed);
  const plan: FaultAt[] = [];
  for (let at = between(random, 5, 15); at < seconds - 10; at += between(random, 10, 25)) {
    const roll = random();
    plan.push({ atSec: at, kind: roll < 0.5 ? "worker-sigkill" : roll < 0.7 ? "server-restart" : "connection-drop" });
  }
  return plan;
}
