// `ratelab/redis`: limiters whose state lives in Redis, shared by every process. Install a
// client, ioredis or redis (node-redis v5): both are optional peer dependencies. Only
// connectRedis loads one (ioredis, on first call), and these types name neither's types,
// so a project with either (or none) type checks them.

/** A limiter deciding in Redis, one atomic Lua script per decision; same decisions as `createLimiter`. */
export { createRedisLimiter } from './redis-limiter.js';
/** Its options (`timeoutMs` default 50 ms, `failMode`, `denyCache`...), the limiter, and a decision with its `reason`. */
export type {
  DecisionReason,
  FailMode,
  RedisDecision,
  RedisLimiterOptions,
  RedisRateLimiter,
} from './redis-limiter.js';
/** Local decisions with counts shared through Redis every `syncMs` (default 100 ms): approximate, no round trip per request. */
export { createApproximateLimiter } from './approximate-limiter.js';
/** The approximate limiter and its options (`expectedNodes` >= 1, `syncMs`, `timeoutMs` in ms). */
export type { ApproximateLimiter, ApproximateLimiterOptions } from './approximate-limiter.js';
/** Connects to a loopback Redis (others with `allowRemote`) with bounded options; needs ioredis (`MISSING_DEPENDENCY` says `npm install ioredis`). */
export { connectRedis } from './client.js';
/** ioredis options bounding every command: no offline queue, no retries, `commandTimeout` ms (default 1000). */
export { boundedRedisOptions } from './client.js';
/** connectRedis's options and connection, the bounded options' type, and its targets: a URL (`redis://`, `redis+sentinel://`) or `{ sentinels, name, db? }`. */
export type {
  BoundedRedisOptions,
  ConnectOptions,
  RedisConnection,
  RedisTarget,
  SentinelAddress,
  SentinelTarget,
} from './client.js';
/** The clients ratelab accepts, by the commands it sends (EVALSHA, EVAL, DEL): ioredis `Redis`/`Cluster`, node-redis v5 `createClient`/`createCluster`. */
export type { IoredisClient, NodeRedisClient, NodeRedisScriptOptions, RedisClient } from './run-script.js';
/** The hash slot (0..16383) of a Redis key: keys sharing a `{hash tag}` share a slot, and so a batch on a Cluster. */
export { hashSlot } from './hash-slot.js';
/** A Redis key as ratelab sends it (what `limiter.redisKey(key)` returns): a string, or the WTF-8 bytes of a key holding a lone surrogate. */
export type { RedisKey } from './redis-key.js';
