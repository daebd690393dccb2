import { Connection } from "@temporalio/client";
import { AgentClient, type Principal } from "durable-agents";
declare const keys: Record<string, string>;
declare const current: string;
declare function operatorOf(authorization: string | null): Promise<{ mayDecrypt: boolean } | undefined>;
declare function authenticate(request: Request): Promise<Principal | undefined>;
const agents = new AgentClient({ connection: await Connection.connect(), taskQueue: "agents" });
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
serve({ fetch: createCodecServer(codec), port: 8888 }); // standalone: …/encode, …/decode
createAgentHttpHandler({ agents, authenticate, codec }); // or in the front door, at /codec/encode, /codec/decode
