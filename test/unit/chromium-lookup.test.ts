import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CHROMIUM_MISSING, findChromium } from "../chromium.js";

const dir = mkdtempSync(join(tmpdir(), "chromium-lookup-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, mode: number) => {
  const path = join(dir, name);
  writeFileSync(path, "#!/bin/sh\n");
  chmodSync(path, mode);
  return path;
};

describe("the browser tests' Chromium lookup", () => {
  it("without any browser, fails with one message that says what to install", () => {
    expect(() => findChromium({ PATH: join(dir, "empty") }, [])).toThrow(CHROMIUM_MISSING);
    expect(CHROMIUM_MISSING).toContain("apt-get install chromium");
    expect(CHROMIUM_MISSING).toContain("CHROMIUM_PATH");
  });

  it("finds one on PATH by its usual names, skipping files it cannot run", () => {
    file("chromium", 0o644);
    const chrome = file("google-chrome", 0o755);
    expect(findChromium({ PATH: `${join(dir, "empty")}:${dir}` }, [])).toBe(chrome);
  });

  it("takes CHROMIUM_PATH first, and refuses one that is not there rather than looking elsewhere", () => {
    const mine = file("my-chromium", 0o755);
    expect(findChromium({ CHROMIUM_PATH: mine, PATH: dir }, [])).toBe(mine);
    expect(() => findChromium({ CHROMIUM_PATH: join(dir, "gone"), PATH: dir }, [])).toThrow(/CHROMIUM_PATH is ".*gone", which is not an executable file\. Install it \(Debian\/Ubuntu: `apt-get install chromium`/);
  });

  it("falls back to the well-known installs", () => {
    const installed = file("Chromium", 0o755);
    expect(findChromium({ PATH: "" }, [join(dir, "absent"), installed])).toBe(installed);
  });
});
