/**
 * The browser tests' Chromium, found in one place and never downloaded (playwright-core
 * drives whatever is installed). Without one, a browser test fails before it starts
 * anything, with one message that says what to install.
 */
import { chromium, type Browser } from "playwright-core";
import { findExecutable, isExecutable } from "../src/testing/executable.js";

/** Executable names looked up on `PATH`, in order. */
const NAMES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];
/** Where the usual installs live when `PATH` does not name them. */
const WELL_KNOWN = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/Applications/Chromium.app/Contents/MacOS/Chromium",
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
];

const INSTALL =
  "Install it (Debian/Ubuntu: `apt-get install chromium`; macOS: `brew install --cask chromium`) or set CHROMIUM_PATH to its executable. No browser is downloaded.";

export const CHROMIUM_MISSING = `The browser tests need Chromium (or Google Chrome) and found none: CHROMIUM_PATH is not set, and no ${NAMES.join(", ")} is on PATH or in the usual places. ${INSTALL}`;

/**
 * The Chromium to drive: `CHROMIUM_PATH` when set (an error when it is not an executable),
 * else the first of `NAMES` on `PATH`, else the first well-known install.
 */
export function findChromium(env: Record<string, string | undefined> = process.env, wellKnown: readonly string[] = WELL_KNOWN): string {
  const chosen = env.CHROMIUM_PATH;
  if (chosen) {
    if (isExecutable(chosen)) return chosen;
    throw new Error(`CHROMIUM_PATH is ${JSON.stringify(chosen)}, which is not an executable file. ${INSTALL}`);
  }
  const found = findExecutable(NAMES, wellKnown, env);
  if (found) return found;
  throw new Error(CHROMIUM_MISSING);
}

/** A headless Chromium for one test file; throws `CHROMIUM_MISSING` at once when there is none. */
export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: findChromium(), headless: true, args: ["--no-sandbox"] });
