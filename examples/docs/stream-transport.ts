import { aesGcmCodec, inProcessStreamTransport } from "durable-agents";
import { redisStreamTransport } from "durable-agents/redis";

// Readers in the worker's own process get every delta.
const local = inProcessStreamTransport();

// Workers and front doors in different processes: one Redis they all reach. The codec is the
// worker's payload codec, so that message text is not on Redis in the clear.
const codec = aesGcmCodec({ keys: { "2026-11": process.env.PAYLOAD_KEY! }, current: "2026-11" });
const transport = redisStreamTransport({
  url: process.env.REDIS_URL ?? "redis://localhost:6379",
  codec,
  onError: (err) => console.warn(err.message), // dropped messages, lost connections
});

// On shutdown, after the worker and the clients stopped:
await transport.close();
