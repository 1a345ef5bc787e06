// PROTOTYPE (issue 10 prep): the `ratelab/redis` entry, re-exporting from src/redis/
// until issue 10 moves it to src/redis/. ioredis is an optional peer dependency: only
// connectRedis loads it, on first call (see src/redis/load-ioredis.ts).
export { createRedisLimiter } from '../redis/redis-limiter.js';
export type { DecisionReason, FailMode, RedisDecision, RedisLimiterOptions, RedisRateLimiter } from '../redis/redis-limiter.js';
export type { RedisClient } from '../redis/run-script.js';
export { boundedRedisOptions, connectRedis } from '../redis/client.js';
export { createApproximateLimiter } from '../redis/approximate-limiter.js';
export type { ApproximateLimiter, ApproximateLimiterOptions } from '../redis/approximate-limiter.js';
