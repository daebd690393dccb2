/**
 * The transports a worker and a reader "in another process" each hold, as the cross-process
 * stream tests pair them: each side its own Redis connection (one server per test file,
 * started when a test first asks), or a direct transport on each side (the reader's finds the
 * worker's endpoint among the queue's pollers).
 */
import { directStreamTransport, type StreamTransport } from "../src/index.js";
import { redisStreamTransport } from "../src/redis.js";
import { startRedis, type RedisServerHandle } from "../src/testing/index.js";

export class TransportPairs {
  #redis: Promise<RedisServerHandle> | undefined;

  /** `[worker's, reader's]`, over the file's Redis server. */
  redis = async (): Promise<[StreamTransport, StreamTransport]> => {
    const { url } = await (this.#redis ??= startRedis());
    return [redisStreamTransport({ url }), redisStreamTransport({ url })];
  };

  /** `[worker's, reader's]`: the worker's endpoint on loopback, the reader's transport its own. */
  direct = async (): Promise<[StreamTransport, StreamTransport]> => [directStreamTransport({ host: "127.0.0.1" }), directStreamTransport()];

  /** Stops the Redis server, if a test started it. */
  async stop(): Promise<void> {
    await (await this.#redis?.catch(() => undefined))?.stop();
  }
}
