import type { Payload, PayloadCodec } from "@temporalio/common";
import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { codecChain } from "../codec/chain.js";
import { payloadFromJson, payloadToJson } from "../codec/payload-json.js";
import { DurableAgentsError } from "../core/errors/base.js";
import { CodecFailedError, CodecUnauthorizedError, CrossSiteRequestError, RequestMalformedError, RequestTooLargeError, RouteNotFoundError } from "../core/errors/http.js";
import { InvalidDefinitionError } from "../core/errors/setup.js";
import { errorResponse, internalErrorResponse } from "./errors.js";

/** Which of the codec server's two operations a request asks for. */
export type CodecOperation = "encode" | "decode";

/** What the codec server's `authorize` hook is told besides the request. */
export interface CodecRequestInfo {
  operation: CodecOperation;
  /** The `X-Namespace` header the Temporal UI and CLI send (absent when the caller sent none). */
  namespace?: string;
}

/** What `createCodecServer` and the front door's `codec` option take. */
export interface CodecServerOptions {
  /**
   * The codecs payloads go through, as on the workers (`payloadCodecs`): encode applies
   * them in order, decode in reverse. E.g. `[aesGcmCodec({ keys, current })]`.
   */
  codecs: PayloadCodec[];
  /**
   * Who may see decrypted payloads: asked for every encode and decode request (never for a
   * CORS preflight, which carries no credentials); only an exact `true` allows, anything
   * else is AI1044 (403) and nothing is decoded. Read what your operators send: the
   * Temporal UI forwards its user's access token as `Authorization: Bearer …` when its
   * codec settings say to pass it (and cookies with `includeCredentials`), the CLI sends
   * `--codec-auth` as `Authorization`. Throw a `DurableAgentsError` to refuse with its code.
   * Required: a codec server without it would decrypt for anyone who can reach it.
   */
  authorize: (request: Request, info: CodecRequestInfo) => unknown;
  /**
   * Browser origins allowed to call it: the Temporal UI's, e.g. `["http://localhost:8233"]`
   * or `["https://cloud.temporal.io"]`. They get CORS headers (credentials allowed); a
   * request from any other origin is refused with AI1043. Callers without an `Origin`
   * (the CLI, services) are not browsers and are let through to `authorize`. Default: none.
   */
  corsOrigins?: string[];
  /** Largest request body, in bytes; bigger ones are AI1041 (413), unread. Default 4 MiB (a page of history's payloads). */
  maxBodyBytes?: number;
  /** Most payloads in one request; more is AI1040. Default 1,000. */
  maxPayloads?: number;
  /** Called with errors that are not the SDK's typed errors (answered as 500 `internal`). Default: `console.error`. */
  onError?: (err: unknown) => void;
}

const MiB = 1024 * 1024;
const ALLOWED_HEADERS = "Content-Type, X-Namespace, Authorization";

/**
 * A remote codec server (the Temporal UI's and CLI's protocol): `POST …/encode` and
 * `POST …/decode` take and answer `{ payloads: [{ metadata: { key: base64 }, data: base64 }] }`,
 * so authorised operators see decrypted payloads while Temporal stores only ciphertext.
 * Only the last path segment counts, as the protocol says, so it mounts at any depth.
 * A fetch-standard handler: serve it on its own (`serve({ fetch: createCodecServer(…) })`)
 * or give the front door `codec` to mount it at `/codec`.
 */
export function createCodecServer(options: CodecServerOptions): (request: Request) => Promise<Response> {
  const app = codecApp(options);
  return async (request) => app.fetch(request);
}

/** The codec server as a Hono app, for `app.route()` (the front door mounts it at `/codec`). */
export function codecApp(options: CodecServerOptions): Hono {
  if (!options || !Array.isArray(options.codecs) || options.codecs.some((c) => typeof c?.encode !== "function" || typeof c?.decode !== "function")) {
    throw new InvalidDefinitionError({ subject: "codec server", problem: "codecs must be a list of payload codecs (encode and decode)" });
  }
  if (typeof options.authorize !== "function") {
    throw new InvalidDefinitionError({ subject: "codec server", problem: "authorize is required: without it anyone who reaches the server could read every payload" });
  }
  const maxBodyBytes = options.maxBodyBytes ?? 4 * MiB;
  const maxPayloads = options.maxPayloads ?? 1000;
  const origins = new Set(options.corsOrigins ?? []);
  const report = options.onError ?? ((err: unknown) => console.error("durable-agents/codec:", err));
  const app = new Hono();

  app.onError((err, c) => {
    if (DurableAgentsError.isDurableAgentsError(err)) return errorResponse(c, err);
    report(err);
    return internalErrorResponse(c);
  });
  app.notFound((c) => errorResponse(c, new RouteNotFoundError({ method: c.req.method, path: new URL(c.req.url).pathname })));

  // CORS first: even a refusal must carry the headers, or the UI cannot read why.
  app.use(async (c, next) => {
    const origin = c.req.header("origin");
    if (origin !== undefined && !origins.has(origin) && origin !== new URL(c.req.url).origin) {
      throw new CrossSiteRequestError({ origin });
    }
    if (origin !== undefined) {
      c.header("Access-Control-Allow-Origin", origin);
      c.header("Access-Control-Allow-Credentials", "true");
    }
    c.header("Vary", "Origin");
    if (c.req.method === "OPTIONS") {
      c.header("Access-Control-Allow-Methods", "POST, OPTIONS");
      c.header("Access-Control-Allow-Headers", ALLOWED_HEADERS);
      c.header("Access-Control-Max-Age", "600");
      return c.body(null, 204);
    }
    await next();
  });
  app.use(
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: () => {
        throw new RequestTooLargeError({ limitBytes: maxBodyBytes });
      },
    }),
  );

  const route = (operation: CodecOperation) => async (c: Context) => {
    const namespace = c.req.header("x-namespace");
    const allowed = await options.authorize(c.req.raw, { operation, ...(namespace !== undefined ? { namespace } : {}) });
    if (allowed !== true) throw new CodecUnauthorizedError({ operation });
    // JSON only: a form or text body is what another site could send without a preflight.
    if (!/^application\/json\b/i.test(c.req.header("content-type") ?? "")) {
      throw new RequestMalformedError({ where: "header", problem: "Content-Type must be application/json" });
    }
    const payloads = parseBody(await c.req.text(), maxPayloads);
    const out: Payload[] = [];
    for (const [index, payload] of payloads.entries()) {
      try {
        out.push(await apply(options.codecs, operation, payload));
      } catch {
        // Neither the codec's message (it may name keys) nor the bytes go back.
        throw new CodecFailedError({ operation, index });
      }
    }
    return c.json({ payloads: out.map(payloadToJson) });
  };
  const encode = route("encode");
  const decode = route("decode");
  // Any depth: only the last segment names the operation.
  app.post("*", (c) => {
    const last = new URL(c.req.url).pathname.split("/").pop();
    if (last === "encode") return encode(c);
    if (last === "decode") return decode(c);
    throw new RouteNotFoundError({ method: c.req.method, path: new URL(c.req.url).pathname });
  });
  return app;
}

async function apply(codecs: PayloadCodec[], operation: CodecOperation, payload: Payload): Promise<Payload> {
  const current = await codecChain(codecs)[operation]([payload]);
  if (current.length !== 1) throw new Error("a codec changed the number of payloads");
  return current[0]!;
}

/** The request's payloads, or AI1040 naming what is wrong (never echoing the bytes). */
function parseBody(text: string, maxPayloads: number): Payload[] {
  const bad = (problem: string) => new RequestMalformedError({ where: "body", problem });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw bad("not JSON");
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) throw bad("expected { payloads: [...] }");
  const list = (body as { payloads?: unknown }).payloads;
  if (!Array.isArray(list)) throw bad("payloads must be an array");
  if (list.length > maxPayloads) throw bad(`at most ${maxPayloads} payloads per request`);
  return list.map((item: unknown, i) => {
    try {
      return payloadFromJson(item, `payloads[${i}]`);
    } catch (err) {
      throw bad((err as Error).message);
    }
  });
}
