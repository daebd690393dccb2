import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { mintResumeToken } from "../../src/worker.js";
import { resolveDeferralConfig } from "../../src/deferral/config.js";
import { verifyResumeToken } from "../../src/deferral/token.js";

const OLD = "old-secret-0123456789-abcdefghijklmnopq";
const NEW = "new-secret-0123456789-abcdefghijklmnopq";
const secrets = (...s: string[]) => resolveDeferralConfig({ secrets: s }).secrets;
const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as { code?: string }).code;
  }
  return undefined;
};

describe("resume tokens", () => {
  it("verify against the secret that minted them, named by the token's key id", () => {
    const token = mintResumeToken(NEW, "dfr:1:run", "call_1", { window: true });
    expect(verifyResumeToken(secrets(NEW, OLD), token)).toEqual({ deferralId: "dfr:1:run", toolCallId: "call_1", version: 2, window: true });
  });

  it("survive a rotation: minted with the old secret, verified while the new one is current", () => {
    const parked = mintResumeToken(OLD, "dfr:1:run", "call_1");
    expect(verifyResumeToken(secrets(NEW, OLD), parked).deferralId).toBe("dfr:1:run");
    // Once the old secret is dropped, its tokens are refused.
    expect(codeOf(() => verifyResumeToken(secrets(NEW), parked))).toBe("RC5041");
  });

  it("still accept tokens minted before key ids existed (v1), against any secret held", () => {
    const claims = Buffer.from(JSON.stringify({ d: "dfr:1:run", c: "call_1" })).toString("base64url");
    const v1 = `v1.${claims}.${createHmac("sha256", OLD).update(`durable-agents/resume/v1\n${claims}`).digest("base64url")}`;
    expect(verifyResumeToken(secrets(NEW, OLD), v1)).toMatchObject({ deferralId: "dfr:1:run", version: 1 });
    expect(codeOf(() => verifyResumeToken(secrets(NEW), v1))).toBe("RC5041");
  });

  it("have one spelling: a signature whose spare base64url bits differ is refused", () => {
    const token = mintResumeToken(NEW, "dfr:1:run", "call_1");
    const last = token.at(-1)!;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const neighbours = [...alphabet].filter((c) => c !== last).map((c) => token.slice(0, -1) + c);
    for (const forged of neighbours) expect(codeOf(() => verifyResumeToken(secrets(NEW), forged))).toBe("RC5041");
  });

  it.each([
    ["not a string", 42],
    ["empty", ""],
    ["over the length cap", `v2.${"A".repeat(5000)}`],
    ["padding", `${mintResumeToken(NEW, "d", "c")}=`],
    ["the wrong shape", "v2.a.b"],
    ["an unknown version", mintResumeToken(NEW, "d", "c").replace(/^v2/, "v3")],
    ["characters outside base64url", mintResumeToken(NEW, "d", "c").replace(/\.([^.]+)$/, ".+/+/")],
  ])("are refused with RC5041 when %s", (_what, token) => {
    expect(codeOf(() => verifyResumeToken(secrets(NEW), token))).toBe("RC5041");
  });

  it("secrets are checked: short, missing, or both forms at once is RC5040", () => {
    expect(codeOf(() => resolveDeferralConfig({ secrets: [NEW, "short"] }))).toBe("RC5040");
    expect(codeOf(() => resolveDeferralConfig({ secrets: [] }))).toBe("RC5040");
    expect(codeOf(() => resolveDeferralConfig({ secret: NEW, secrets: [OLD] }))).toBe("RC5040");
    expect(resolveDeferralConfig({ secrets: [NEW, OLD] }).secret.toString()).toBe(NEW);
  });
});
