/**
 * The codec server (the Temporal UI's and CLI's remote codec protocol): an authorised
 * operator decodes a payload taken from a real run's encrypted history over HTTP, mounted
 * in the front door and on its own; everyone else, and every malformed request, gets a
 * typed refusal that shows nothing of the payload.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCodecServer, type CodecServerOptions } from "../src/http.js";
import { aesGcmCodec, AgentClient, remoteCodec } from "../src/index.js";
import { payloadJson, rawHistory, storedBytes, encryptedWorker } from "./codec-support.js";
import { payoutAgent } from "./fixtures/approvals.js";
import { startHarness, uid, type Harness } from "./harness.js";
import { startHttp, type HttpServer } from "./http-support.js";

const UI = "http://localhost:8233";
const OPERATOR = "Bearer operator-token";
const codec = aesGcmCodec({ keys: { k1: randomBytes(32) }, current: "k1" });
const codecOptions: CodecServerOptions = {
  codecs: [codec],
  corsOrigins: [UI],
  authorize: (request, { namespace }) => request.headers.get("authorization") === OPERATOR && namespace === "default",
  maxBodyBytes: 64 * 1024,
  maxPayloads: 10,
};

let h: Harness;
let agents: AgentClient;
let front: HttpServer;
let standalone: { url: string; server: Server };
beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await encryptedWorker(h, [payoutAgent], codec));
  front = await startHttp({ agents, codec: codecOptions, basePath: "/api" });
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: createCodecServer(codecOptions), port: 0, hostname: "127.0.0.1" }, () => resolve(s as Server));
  });
  standalone = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
});
afterAll(async () => {
  await front?.close();
  standalone?.server.closeAllConnections();
  standalone?.server.close();
  await h?.close();
});

/** POSTs `body` (JSON unless a string) to the codec endpoint at `url`, as the operator unless headers say otherwise. */
async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: OPERATOR, "x-namespace": "default", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, body: json, text, headers: response.headers };
}

/** Starts a run whose prompt carries `marker` with the codec on; returns the run id once it parked. */
async function encryptedRun(marker: string): Promise<string> {
  const runId = uid("codec-run");
  h.model.script(`${runId} ${marker}`, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 5 } }] }]);
  expect(await agents.run(payoutAgent, { prompt: `${runId} ${marker}`, runId })).toMatchObject({ status: "deferred" });
  return runId;
}

describe("codec server", () => {
  let runId: string;
  let marker: string;
  let sealed: ReturnType<typeof payloadJson>;
  beforeAll(async () => {
    marker = `CODEC${randomBytes(5).toString("hex")}`;
    runId = await encryptedRun(marker);
    expect(await storedBytes(h, runId)).not.toContain(marker);
    const history = await rawHistory(h, runId);
    sealed = payloadJson(history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!);
    expect(Buffer.from(sealed.metadata.encoding!, "base64").toString()).toBe("binary/encrypted");
  });

  it("decodes a payload of a real run's history for an authorised operator, mounted in the front door and standalone", async () => {
    for (const url of [`${front.url}/codec/decode`, `${standalone.url}/decode`, `${standalone.url}/any/depth/decode`]) {
      const answer = await post(url, { payloads: [sealed] });
      expect(answer.status, url).toBe(200);
      expect(answer.body.payloads).toHaveLength(1);
      const [plain] = answer.body.payloads;
      expect(Buffer.from(plain.metadata.encoding, "base64").toString()).toBe("json/plain");
      expect(JSON.parse(Buffer.from(plain.data, "base64").toString())).toMatchObject({ agentId: "payouts", prompt: `${runId} ${marker}` });
    }
  });

  it("encodes what it decodes back, and passes payloads that were never encrypted through", async () => {
    const clear = { metadata: { encoding: Buffer.from("json/plain").toString("base64") }, data: Buffer.from('"hello"').toString("base64") };
    const encoded = await post(`${standalone.url}/encode`, { payloads: [clear] });
    expect(encoded.status).toBe(200);
    expect(Buffer.from(encoded.body.payloads[0].metadata.encoding, "base64").toString()).toBe("binary/encrypted");
    expect(encoded.text).not.toContain(clear.data);
    const decoded = await post(`${standalone.url}/decode`, { payloads: [encoded.body.payloads[0], clear] });
    expect(decoded.body.payloads).toEqual([clear, clear]);
  });

  it("refuses without the operator's credentials or for another namespace: AI1044, nothing decoded", async () => {
    const refusals: Array<Record<string, string>> = [{ authorization: "" }, { authorization: "Bearer someone-else" }, { "x-namespace": "other" }];
    for (const headers of refusals) {
      for (const url of [`${front.url}/codec/decode`, `${standalone.url}/decode`]) {
        const answer = await post(url, { payloads: [sealed] }, headers);
        expect(answer.status).toBe(403);
        expect(answer.body.error.code).toBe("AI1044");
        expect(answer.text).not.toContain(marker);
        expect(answer.text).not.toContain(Buffer.from(marker).toString("base64").slice(0, 8));
      }
    }
    // The front door's own authenticate adds nothing: a caller it knows is still not an operator.
    const known = await post(`${front.url}/codec/decode`, { payloads: [sealed] }, { authorization: "", "x-user": "fiona" });
    expect(known.body.error.code).toBe("AI1044");
  });

  it("answers the Temporal UI's CORS preflight without credentials, and refuses other origins with AI1043", async () => {
    for (const url of [`${front.url}/codec/decode`, `${standalone.url}/decode`]) {
      const preflight = await fetch(url, { method: "OPTIONS", headers: { origin: UI, "access-control-request-method": "POST", "access-control-request-headers": "content-type,x-namespace,authorization" } });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get("access-control-allow-origin")).toBe(UI);
      expect(preflight.headers.get("access-control-allow-credentials")).toBe("true");
      expect(preflight.headers.get("access-control-allow-headers")).toMatch(/X-Namespace/);
      expect(preflight.headers.get("access-control-allow-methods")).toMatch(/POST/);

      const fromUi = await post(url, { payloads: [sealed] }, { origin: UI });
      expect(fromUi.status).toBe(200);
      expect(fromUi.headers.get("access-control-allow-origin")).toBe(UI);
      // A refusal carries the CORS headers too, so the UI can show why.
      const refusedFromUi = await post(url, { payloads: [sealed] }, { origin: UI, authorization: "" });
      expect(refusedFromUi.status).toBe(403);
      expect(refusedFromUi.headers.get("access-control-allow-origin")).toBe(UI);

      const evil = "https://evil.example";
      const foreignPreflight = await fetch(url, { method: "OPTIONS", headers: { origin: evil, "access-control-request-method": "POST" } });
      expect(foreignPreflight.status).toBe(403);
      expect(foreignPreflight.headers.get("access-control-allow-origin")).toBeNull();
      const foreign = await post(url, { payloads: [sealed] }, { origin: evil });
      expect(foreign.status).toBe(403);
      expect((foreign.body as { error: { code: string } }).error.code).toBe("AI1043");
      expect(foreign.text).not.toContain(marker);
    }
  });

  it("answers hostile input with typed errors that show nothing of the payloads", async () => {
    const url = `${standalone.url}/decode`;
    const tampered = { ...sealed, data: Buffer.from(Buffer.from(sealed.data, "base64").map((b, i) => (i === 20 ? b ^ 1 : b))).toString("base64") };
    const otherKey = aesGcmCodec({ keys: { secret_key_name: randomBytes(32) }, current: "secret_key_name" });
    const [foreign] = await otherKey.encode([{ metadata: { encoding: Buffer.from("json/plain") }, data: Buffer.from('"x"') }]);
    const cases: Array<{ body: unknown; headers?: Record<string, string>; status: number; code: string }> = [
      { body: "{not json", status: 400, code: "AI1040" },
      { body: "[]", status: 400, code: "AI1040" },
      { body: { payloads: "nope" }, status: 400, code: "AI1040" },
      { body: { payloads: [null] }, status: 400, code: "AI1040" },
      { body: { payloads: [{ metadata: [] }] }, status: 400, code: "AI1040" },
      { body: { payloads: [{ metadata: { encoding: 7 } }] }, status: 400, code: "AI1040" },
      { body: { payloads: [{ data: "not base64!" }] }, status: 400, code: "AI1040" },
      { body: { payloads: Array.from({ length: 11 }, () => sealed) }, status: 400, code: "AI1040" },
      { body: { payloads: [sealed] }, headers: { "content-type": "text/plain" }, status: 400, code: "AI1040" },
      { body: "x".repeat(70 * 1024), status: 413, code: "AI1041" },
      { body: { payloads: [sealed, tampered] }, status: 400, code: "AI1045" },
      { body: { payloads: [payloadJson(foreign!)] }, status: 400, code: "AI1045" },
      { body: { payloads: [{ metadata: { ...sealed.metadata, "encryption-key-id": Buffer.from("__proto__").toString("base64") }, data: sealed.data }] }, status: 400, code: "AI1045" },
    ];
    // The same answers standalone and mounted in the front door (whose own body limit and CSRF check come after it).
    for (const [where, { body, headers, status, code }] of cases.flatMap((c) => [[url, c] as const, [`${front.url}/codec/decode`, c] as const])) {
      const answer = await post(where, body, headers);
      expect({ status: answer.status, code: answer.body?.error?.code }, `${where} ${JSON.stringify(body).slice(0, 80)}`).toEqual({ status, code });
      expect(answer.text).not.toContain(marker);
      expect(answer.text).not.toContain("secret_key_name");
      expect(answer.text).not.toMatch(/at .*\.ts/);
    }
    // The codec server answers nothing but POST …/encode and …/decode.
    expect((await fetch(url)).status).toBe(404);
    expect((await post(`${standalone.url}/decrypt`, { payloads: [] })).body.error.code).toBe("AI1042");
    // And an empty batch is an empty answer.
    expect((await post(url, { payloads: [] })).body).toEqual({ payloads: [] });
  });

  it("lets a client without the keys read an encrypted run through it (remoteCodec, what the command's --codec-endpoint uses)", async () => {
    const through = (authorization: string) =>
      new AgentClient({
        connection: h.connection,
        namespace: h.namespace,
        taskQueue: "unused",
        dataConverter: { payloadCodecs: [remoteCodec({ endpoint: `${front.url}/codec`, namespace: "default", authorization })] },
      });
    const page = await through(OPERATOR).listMessages({ runId, limit: 1 });
    expect(page.messages[0]).toMatchObject({ role: "user", content: `${runId} ${marker}` });
    // Refused by the codec server: the client cannot read the run, and says why in a typed error.
    await expect(through("Bearer nobody").listMessages({ runId, limit: 1 })).rejects.toMatchObject({ code: "AI1045" });
  });

  it("will not be built without an authorize hook or codecs (AI1001)", () => {
    expect(() => createCodecServer({ codecs: [codec] } as unknown as CodecServerOptions)).toThrow(/AI1001.*authorize/);
    expect(() => createCodecServer({ codecs: [{}], authorize: () => true } as unknown as CodecServerOptions)).toThrow(/AI1001/);
  });
});
