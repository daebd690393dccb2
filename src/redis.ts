/**
 * `durable-agents/redis`: a stream transport on Redis Pub/Sub, for readers (an HTTP front
 * door, a service holding the threads client) in other processes than the workers. An
 * entry of its own because it needs the `redis` package (node-redis, an optional peer):
 * the other entries install and type-check without it.
 *
 * @example
 * ```ts
 * import { aesGcmCodec } from "durable-agents";
 * import { redisStreamTransport } from "durable-agents/redis";
 *
 * // The worker's codec too, so that message text is not on Redis in the clear.
 * const transport = redisStreamTransport({ url: "redis://localhost:6379", codec: aesGcmCodec({ keys, current: "k1" }) });
 * ```
 *
 * @packageDocumentation
 * @module durable-agents/redis
 */
export { redisStreamTransport, type RedisClient, type RedisStreamTransport, type RedisStreamTransportOptions } from "./stream/redis.js";
