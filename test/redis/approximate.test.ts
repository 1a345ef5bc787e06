import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { ManualClock } from '../../src/index.js';
import { createApproximateLimiter, type ApproximateLimiter } from '../../src/redis/approximate-limiter.js';
import { describeRedis, useRedisServer } from '../support/describe-redis.js';

let runs = 0;

describeRedis('approximate local + global limiter (limit / N locally, synced every syncMs)', () => {
  const fixture = useRedisServer();

  /** N nodes on one clock, syncing only when told (the timer is for production). */
  function fleet(
    nodes: number,
    limit: number,
    clock: ManualClock,
    client: Redis = fixture.redis,
  ): ApproximateLimiter[] {
    const prefix = `approx${runs++}:`;
    return Array.from({ length: nodes }, () =>
      createApproximateLimiter(
        { limit, windowMs: 1000 },
        { redis: client, expectedNodes: nodes, syncMs: 100, clock, prefix, autoSync: false, timeoutMs: 5000 },
      ),
    );
  }
  const admitted = (node: ApproximateLimiter, calls: number) =>
    Array.from({ length: calls }, () => node.consume('k')).filter((d) => d.allowed).length;

  it('allows each node its share, limit / N, before it has synced', () => {
    const clock = new ManualClock(0);
    const [a, b] = fleet(2, 10, clock);
    expect(admitted(a!, 8)).toBe(5);
    expect(admitted(b!, 8)).toBe(5);
    // The next sync may bring more budget: retry then.
    expect(a!.consume('k')).toEqual({ allowed: false, limit: 10, remaining: 0, retryAfterMs: 100, resetMs: 1000 });
  });

  // Its counts meet in Redis under byte keys: keys differing only in lone surrogates (which
  // UTF-8 makes U+FFFD) must not pool their counts there.
  it('keeps apart in Redis keys that differ only in lone surrogates', async () => {
    const clock = new ManualClock(0);
    const [node] = fleet(1, 3, clock);
    // Synced in this order: were they one key in Redis, U+FFFD's total would read 5 of 3.
    for (const lone of ['user\uD800', 'user\uDC00']) expect(node!.consume(lone, 2).allowed).toBe(true);
    expect(node!.consume('user\uFFFD').allowed).toBe(true);
    await node!.sync();
    expect(node!.consume('user\uFFFD', 2)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('lets a node with all the traffic use what idle nodes leave, reaching the limit without passing it', async () => {
    const clock = new ManualClock(0);
    const [busy, idle] = fleet(2, 10, clock);
    let total = 0;
    for (let interval = 0; interval < 8; interval++) {
      total += admitted(busy!, 10);
      await Promise.all([busy!.sync(), idle!.sync()]);
      clock.advance(100);
    }
    expect(total).toBe(10); // a fixed 10 / 2 split would have stopped at 5
  });

  it('over-admits by less than what the fleet admits in one sync interval', async () => {
    const clock = new ManualClock(0);
    const nodes = fleet(3, 30, clock);
    let total = 0;
    let mostInOneInterval = 0;
    for (let interval = 0; interval < 9; interval++) {
      let inInterval = 0;
      for (const node of nodes) inInterval += admitted(node, 7);
      total += inInterval;
      mostInOneInterval = Math.max(mostInOneInterval, inInterval);
      await Promise.all(nodes.map((node) => node.sync()));
      clock.advance(100);
    }
    expect(total).toBeGreaterThanOrEqual(30);
    expect(total - 30).toBeLessThan(mostInOneInterval);
  });

  it('starts every window afresh', async () => {
    const clock = new ManualClock(0);
    const [a] = fleet(1, 3, clock);
    expect(admitted(a!, 5)).toBe(3);
    await a!.sync();
    clock.advance(1000);
    expect(admitted(a!, 5)).toBe(3);
  });

  it('keeps deciding on its last budgets while Redis is unreachable', async () => {
    const clock = new ManualClock(0);
    const down = new Redis({ port: 1, lazyConnect: true, enableOfflineQueue: false, retryStrategy: () => null });
    down.on('error', () => {});
    const [a, b] = fleet(2, 10, clock, down);
    expect(admitted(a!, 4)).toBe(4);
    await a!.sync(); // resolves: a failed sync keeps the budget
    expect(admitted(a!, 4)).toBe(1);
    expect(admitted(b!, 9)).toBe(5);
  });

  it('refuses a key that is not a string, as every limiter does, and counts nothing for it', () => {
    const clock = new ManualClock(0);
    const [node] = fleet(1, 3, clock);
    for (const key of [undefined, 42, null]) {
      expect(() => node!.consume(key as unknown as string)).toThrow(expect.objectContaining({ code: 'INVALID_KEY' }));
      expect(() => node!.allow(key as unknown as string)).toThrow(expect.objectContaining({ code: 'INVALID_KEY' }));
    }
    expect(admitted(node!, 4)).toBe(3);
  });

  it('refuses a bad node count', () => {
    expect(() =>
      createApproximateLimiter({ limit: 1, windowMs: 1 }, { redis: fixture.redis, expectedNodes: 0 }),
    ).toThrow(/expectedNodes/);
  });
});
