/**
 * `npm run bench -- <name>`: runs bench/<name>.ts. Progress goes to stderr; the result is
 * one JSON line, printed last on stdout, so scripts can take `tail -n 1`.
 */
type BenchModule = { main(): Promise<Record<string, unknown>> };

// Lazy imports: a bench only loads what it uses.
const BENCHES: Record<string, () => Promise<BenchModule>> = {
  history: () => import("./history.js"),
  overhead: () => import("./overhead.js"),
  thread: () => import("./thread.js"),
  parked: () => import("./parked.js"),
  resume: () => import("./resume.js"),
  cancel: () => import("./cancel.js"),
  http: () => import("./http.js"),
  long: () => import("./long.js"),
  latency: () => import("./latency.js"),
  approval: () => import("./approval.js"),
  inbox: () => import("./inbox.js"),
  cost: () => import("./cost.js"),
  schedules: () => import("./schedules.js"),
  throughput: () => import("./throughput.js"),
  "thread-readers": () => import("./thread-readers.js"),
  chaos: () => import("./chaos.js"),
  sizes: () => import("./sizes.js"),
  "large-results": () => import("./large-results.js"),
  "long-thread": () => import("./long-thread.js"),
};

const name = process.argv[2];
const load = name === undefined ? undefined : BENCHES[name];
if (!load) {
  process.stderr.write(`usage: npm run bench -- <name>\navailable benches: ${Object.keys(BENCHES).join(", ")}\n`);
  process.exit(2);
}

const startedAt = Date.now();
process.stderr.write(`[bench] ${name}: starting\n`);
try {
  const result = await (await load()).main();
  process.stderr.write(`[bench] ${name}: done in ${((Date.now() - startedAt) / 1000).toFixed(1)}s\n`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  // The result is out: a client retry timer that outlived its connection (see isStrayClientRetry)
  // must not turn a finished bench into a failed one as the process winds down.
  const { isStrayClientRetry } = await import("./lib.js");
  process.on("uncaughtException", (err) => {
    if (isStrayClientRetry(err)) return;
    process.stderr.write(`[bench] ${name}: failed after its result: ${err.stack ?? err.message}\n`);
    process.exit(1);
  });
} catch (err) {
  process.stderr.write(`[bench] ${name}: failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
}
