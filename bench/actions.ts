/**
 * Temporal's billed actions, read from the dev server's own `action` counter (`--metrics-port`):
 * what Temporal Cloud bills (starts, activity tasks, timers, search-attribute upserts, signals,
 * updates, queries answered by a worker, heartbeats that reach the server). `bench cost` and
 * `bench schedules` measure each piece of work as the counter's delta for one namespace.
 */
import { setTimeout as sleep } from "node:timers/promises";

/** Actions by type (`grpc_` prefixes dropped), and their sum. */
export interface Measured {
  total: number;
  byOperation: Record<string, number>;
}

export function actionCounter(metricsPort: number, namespace: string) {
  /** The `action` counter of the namespace, by action type. */
  const actions = async (): Promise<Map<string, number>> => {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const counts = new Map<string, number>();
    for (const line of text.split("\n")) {
      const match = /^action\{([^}]*)\} (\d+(?:\.\d+)?(?:e\+\d+)?)$/.exec(line);
      if (!match) continue;
      const labels = Object.fromEntries([...match[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
      if (labels.namespace !== namespace) continue;
      const type = labels.action_type ?? "unknown";
      counts.set(type, (counts.get(type) ?? 0) + Number(match[2]));
    }
    return counts;
  };
  /**
   * Waits until the counter stops moving: what a piece of work caused has been counted. The
   * server publishes its counters once a second, so the counter must stay still for longer
   * than that (an action is seen up to a second after it happened).
   */
  const settle = async (): Promise<void> => {
    const total = async () => [...(await actions()).values()].reduce((a, b) => a + b, 0);
    let last = await total();
    for (let quiet = 0; quiet < 3; ) {
      await sleep(350);
      const now = await total();
      quiet = now === last ? quiet + 1 : 0;
      last = now;
    }
  };
  /**
   * Actions each of `steps` adds, by type, once the server has counted what it caused (quiet
   * for a moment); one quiet moment between two steps serves as the end of one and the start of the next.
   */
  const measureSteps = async <Steps extends Array<() => Promise<unknown>>>(steps: [...Steps], measuredStep?: (index: number, measured: Measured) => void): Promise<{ [K in keyof Steps]: Measured }> => {
    await settle();
    let before = await actions();
    const measured: Measured[] = [];
    for (const step of steps) {
      await step();
      await settle();
      const after = await actions();
      const byOperation: Record<string, number> = {};
      for (const [type, n] of after) {
        const delta = n - (before.get(type) ?? 0);
        if (delta > 0) byOperation[type.replace(/^grpc_/, "")] = delta;
      }
      measured.push({ total: Object.values(byOperation).reduce((a, b) => a + b, 0), byOperation });
      measuredStep?.(measured.length - 1, measured.at(-1)!);
      before = after;
    }
    return measured as { [K in keyof Steps]: Measured };
  };
  const measure = async (work: () => Promise<unknown>): Promise<Measured> => (await measureSteps([work]))[0];
  return { actions, settle, measureSteps, measure };
}
