import { Connection } from "@temporalio/client";
import { AgentClient, type Principal } from "durable-agents";
import { address, listeningUrl } from "../docs-support/env.js";
// The workers' keys, and the operators' login: here a bearer token only "ops" holds.
const keys = { "2026-11": process.env.PAYLOAD_KEY! };
const current = "2026-11";
const operatorOf = async (authorization: string | null) => (authorization === "Bearer ops" ? { mayDecrypt: true } : undefined);
const authenticate = async (_request: Request): Promise<Principal | undefined> => undefined;
const agents = new AgentClient({ connection: await Connection.connect({ address }), taskQueue: "agents" });
// ---cut---
import { serve } from "@hono/node-server";
import { aesGcmCodec } from "durable-agents";
import { createAgentHttpHandler, createCodecServer, type CodecServerOptions } from "durable-agents/http";

const codec: CodecServerOptions = {
  codecs: [aesGcmCodec({ keys, current })], // the workers' payloadCodecs
  corsOrigins: ["http://localhost:8233"], // the Temporal UI's origin
  authorize: async (request, { namespace }) =>
    (await operatorOf(request.headers.get("authorization")))?.mayDecrypt === true && namespace === "default",
};
const server = serve({ fetch: createCodecServer(codec), port: Number(process.env.PORT ?? 8888) }); // standalone: …/encode, …/decode (PORT=0: any free port)
createAgentHttpHandler({ agents, authenticate, codec }); // or in the front door, at /codec/encode, /codec/decode
// ---end---
// What the Temporal UI sends: a payload to encrypt, then the ciphertext to decrypt, as the operator and as someone else.
const base = await listeningUrl(server);
const post = async (operation: string, payloads: unknown[], authorization: string) => {
  const response = await fetch(`${base}/${operation}`, { method: "POST", headers: { "content-type": "application/json", "x-namespace": "default", authorization }, body: JSON.stringify({ payloads }) });
  return { status: response.status, body: (await response.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> } };
};
const plain = { metadata: { encoding: Buffer.from("json/plain").toString("base64") }, data: Buffer.from('"the customer\'s IBAN"').toString("base64") };
const encoded = await post("encode", [plain], "Bearer ops");
const encoding = Buffer.from(encoded.body.payloads[0]!.metadata.encoding!, "base64").toString();
const decoded = await post("decode", encoded.body.payloads, "Bearer ops");
console.log(`encode: ${encoded.status} ${encoding}; decode: ${decoded.status} ${Buffer.from(decoded.body.payloads[0]!.data, "base64").toString()}`);
console.log(`someone else: ${(await post("decode", encoded.body.payloads, "Bearer guest")).status}`);
server.close();
await agents.client.connection.close();
