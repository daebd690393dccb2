// ---cut---
import { aesGcmCodec, directStreamTransport, inProcessStreamTransport } from "durable-agents";
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

// The same with no broker: each worker serves its threads' batches from an endpoint of its
// own (here on the pod's address), and readers find it through Temporal.
const direct = directStreamTransport({ host: process.env.POD_IP, codec });

// On shutdown, after the worker and the clients stopped:
await transport.close();
await direct.close();
// ---end---
console.log(`closed: ${[local, transport, direct].length} transports`);
