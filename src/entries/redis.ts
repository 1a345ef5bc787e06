// PROTOTYPE (issue 10 prep): the `ratelab/redis` entry, re-exporting from src/store/redis/
// until issue 10 moves it to src/redis/. ioredis is an optional peer dependency: only
// connectRedis loads it, on first call (see src/store/redis/load-ioredis.ts).
export { createRedisLimiter } from '../store/redis/redis-limiter.js';
export type { DecisionReason, FailMode, RedisDecision, RedisLimiterOptions, RedisRateLimiter } from '../store/redis/redis-limiter.js';
export type { RedisClient } from '../store/redis/run-script.js';
export { boundedRedisOptions, connectRedis } from '../store/redis/client.js';
export { createApproximateLimiter } from '../store/redis/approximate-limiter.js';
export type { ApproximateLimiter, ApproximateLimiterOptions } from '../store/redis/approximate-limiter.js';
