/**
 * README's first command for a newcomer, `npm run demo`, as it runs: the payouts agent parks
 * before its gated payout, a person without the role is refused, the approver's decision
 * pays once, and a second click changes nothing. Against the suite's server (the demo uses
 * TEMPORAL_ADDRESS when it is set) and its own scripted model.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, inject, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

describe("npm run demo", () => {
  it("pays the invoice only once the finance approver decided, and refuses the intern", async () => {
    const env = { ...process.env, TEMPORAL_ADDRESS: inject("temporalAddress"), TEMPORAL_NAMESPACE: inject("temporalNamespace"), PORT: "0", OPENAI_API_KEY: "" };
    // PORT=0: the demo serves on a port it got, never one probed free here that another process took before the demo bound it.
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [`${root}node_modules/tsx/dist/cli.mjs`, "examples/demo.ts"], { cwd: root, env, timeout: 110_000 }, (err, out, errors) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout: out, stderr: errors }),
      );
    });
    // What the demo said on stderr is the first thing to read when it did not get there.
    expect(stdout, stderr).toContain("nothing has been paid");
    expect(stdout).toMatch(/refused: RC5056/);
    // What it prints is where it serves: the port it bound, in every link.
    const [, base] = /HTTP front door on (http:\/\/localhost:[1-9]\d*) /.exec(stdout) ?? [];
    expect(base, stdout).toBeDefined();
    expect(stdout).toContain(`Approval page: ${base}/approve?`);
    expect(stdout).toContain(`Console (the run, its conversation and timeline): ${base}/console/runs/demo-`);
    expect(stdout.match(/\[tool\] sendPayout/g)).toHaveLength(1);
    expect(stdout).toContain("a second click: duplicate");
    expect(stdout).toMatch(/Answer: Invoice INV-1042 \(€4200 to Acme Robotics\) was approved and paid: reference PAY-INV-1042\./);
    expect(code).toBe(0);
  }, 120_000);
});
