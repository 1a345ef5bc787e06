// Every limiter implements the one limiter interface, AsyncRateLimiter: checked by the type
// checker (`npx tsc --noEmit`, part of `npm test`), not at run time. The Redis and cluster
// limiters answer every call with a promise; the others answer at once where they can.
import { describe, expectTypeOf, it } from 'vitest';
import type { AsyncRateLimiter, Consumer } from '../../src/core/limiter.js';
import type { Decision } from '../../src/core/decision.js';
import type { LimiterLike } from '../../src/http/middleware.js';
import type { RateLimiter } from '../../src/memory/limiter.js';
import type { ApproximateLimiter } from '../../src/redis/approximate-limiter.js';
import type { RedisDecision, RedisRateLimiter } from '../../src/redis/redis-limiter.js';
import type { ClusterDecision, ClusterRateLimiter } from '../../src/shared/cluster-worker.js';
import type { SharedRateLimiter } from '../../src/shared/limiter.js';
import type { Waitable } from '../../src/wait/throttle.js';

/** The interface with every result a promise: what the limiters over a remote store answer. */
interface Remote<D extends Decision> {
  consume(key: string, cost?: number): Promise<D>;
  allow(key: string): Promise<boolean>;
  wait(key: string, cost?: number): Promise<D>;
  reset(key: string): Promise<boolean>;
}

describe('the one limiter interface', () => {
  it('the Redis, approximate and cluster limiters implement it', () => {
    expectTypeOf<RedisRateLimiter>().toExtend<AsyncRateLimiter<RedisDecision>>();
    expectTypeOf<ApproximateLimiter>().toExtend<AsyncRateLimiter<Decision>>();
    expectTypeOf<ClusterRateLimiter>().toExtend<AsyncRateLimiter<ClusterDecision>>();
  });

  it('the Redis and cluster limiters answer every call with a promise', () => {
    expectTypeOf<RedisRateLimiter>().toExtend<Remote<RedisDecision>>();
    expectTypeOf<ClusterRateLimiter>().toExtend<Remote<ClusterDecision>>();
    expectTypeOf<ApproximateLimiter['reset']>().returns.toEqualTypeOf<Promise<boolean>>();
  });

  it('so do the memory and shared limiters, answering at once', () => {
    expectTypeOf<RateLimiter>().toExtend<AsyncRateLimiter<Decision>>();
    expectTypeOf<SharedRateLimiter>().toExtend<AsyncRateLimiter<Decision>>();
    expectTypeOf<RateLimiter['reset']>().returns.toEqualTypeOf<boolean>();
  });

  it('every limiter is a Consumer, a LimiterLike for the middleware and Waitable for throttle', () => {
    type Every = RateLimiter | SharedRateLimiter | RedisRateLimiter | ApproximateLimiter | ClusterRateLimiter;
    expectTypeOf<Every>().toExtend<Consumer<Decision>>();
    expectTypeOf<Every>().toExtend<LimiterLike>();
    expectTypeOf<Every>().toExtend<Waitable>();
  });
});
