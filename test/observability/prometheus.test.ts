// registerMetrics on real limiters: the counts of each outcome are exactly the decisions
// made (memory on a ManualClock, a composite, shadow mode, Redis deciding then failing open
// or closed), the histogram only for asynchronous limiters, the keys gauge, and the series
// bounded by tiers x outcomes however many keys decide.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../src/core/decision-event.js';
import { createLimiter, ManualClock, type Decision } from '../../src/index.js';
import { registerMetrics } from '../../src/observability/prometheus.js';
import { createRedisLimiter, type RedisDecision } from '../../src/redis/redis-limiter.js';
import { describeRedis, withFailingRedis } from '../support/describe-redis.js';
import { decisionCounts, samples } from './support.js';

const series = (limiter: string, tier: string, outcome: Outcome) =>
  `ratelab_decisions_total{limiter="${limiter}",outcome="${outcome}",tier="${tier}"}`;

/** What each decision counts as, from the decision alone (the events' rule, restated). */
function outcomeOf(decision: Decision | RedisDecision): Outcome {
  const reason = (decision as Partial<RedisDecision>).reason;
  if (reason === 'fail-open') return 'failed-open';
  if (reason === 'fail-closed') return 'failed-closed';
  if (decision.shadowDenied === true) return 'shadow-denied';
  return decision.allowed ? 'allowed' : 'denied';
}

/** The non-zero decision counts that `decisions` should have made, under `limiter`/`tier`. */
function tallied(
  limiter: string,
  tier: string,
  decisions: readonly (Decision | RedisDecision)[],
): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const decision of decisions) {
    const name = series(limiter, tier, outcomeOf(decision));
    counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

describe('registerMetrics on the memory limiter (ManualClock)', () => {
  // Token bucket, 3 per second (one unit per 333.3 ms), key k unless said.
  const STEPS: [at: number, key: string, cost: number, outcome: Outcome, why: string][] = [
    [0, 'k', 1, 'allowed', 'a full bucket of 3'],
    [0, 'k', 2, 'allowed', 'the other two'],
    [0, 'k', 1, 'denied', 'empty'],
    [0, 'k', 5, 'denied', 'more than the capacity: a denial like any other'],
    [0, 'j', 1, 'allowed', 'another key: its own bucket, the same series'],
    [334, 'k', 1, 'allowed', 'one unit back after a third of the window'],
    [334, 'k', 1, 'denied', 'and only one'],
    [334, 'k', 0, 'allowed', 'cost 0 only asks: an admission'],
  ];

  it('counts each decision once, under its outcome, step by step', async () => {
    const clock = new ManualClock(0);
    const limiter = createLimiter('token-bucket', { limit: 3, windowMs: 1000 }, { clock, name: 'free' });
    const registry = new Registry();
    registerMetrics(limiter, { registry, name: 'api' });
    const want: Record<string, number> = {};
    for (const [i, [at, key, cost, outcome, why]] of STEPS.entries()) {
      clock.set(at);
      const decision = limiter.consume(key, cost);
      expect(outcomeOf(decision), `step ${i + 1}: ${why}`).toBe(outcome);
      want[series('api', 'free', outcome)] = (want[series('api', 'free', outcome)] ?? 0) + 1;
      expect(await decisionCounts(registry), `step ${i + 1}: ${why}`).toEqual(want);
    }
  });

  it('counts allow() and wait() as consume does', async () => {
    const clock = new ManualClock(0);
    const limiter = createLimiter('gcra', { limit: 2, windowMs: 1000 }, { clock });
    const registry = new Registry();
    registerMetrics(limiter, { registry, name: 'api' });
    const answers = [limiter.allow('k'), limiter.allow('k'), limiter.allow('k')];
    const waited = limiter.wait('k');
    clock.advance(500);
    await waited;
    expect(answers).toEqual([true, true, false]);
    // wait: one denial while the key was empty (it then waited), one admission once it could.
    expect(await decisionCounts(registry)).toEqual({
      [series('api', '', 'allowed')]: 3,
      [series('api', '', 'denied')]: 2,
    });
  });

  it('counts a composite (two limits) once per decision, whichever limit binds', async () => {
    const clock = new ManualClock(0);
    const limiter = createLimiter(
      'fixed-window',
      [
        { limit: 2, windowMs: 1000, name: 'second' },
        { limit: 3, windowMs: 60_000, name: 'minute' },
      ],
      { clock, name: 'pro' },
    );
    const registry = new Registry();
    registerMetrics(limiter, { registry, name: 'api' });
    const decisions: Decision[] = [];
    for (const at of [0, 0, 0, 1000, 1000, 2000]) {
      clock.set(at);
      decisions.push(limiter.consume('k'));
    }
    // 2 in the first second, the third denied by it; 1 more in the next (the minute's third), then the minute denies.
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, false, true, false, false]);
    expect(await decisionCounts(registry)).toEqual(tallied('api', 'pro', decisions));
  });

  it("counts a limiter in shadow mode's denials as shadow-denied (and admits them)", async () => {
    const clock = new ManualClock(0);
    const limiter = createLimiter(
      'sliding-log',
      { limit: 10, windowMs: 1000 },
      { clock, name: 'trial', enforce: false },
    );
    const registry = new Registry();
    registerMetrics(limiter, { registry, name: 'api' });
    const decisions = Array.from({ length: 1000 }, () => limiter.consume('k'));
    expect(decisions.every((d) => d.allowed)).toBe(true);
    expect(await decisionCounts(registry)).toEqual({
      [series('api', 'trial', 'allowed')]: 10,
      [series('api', 'trial', 'shadow-denied')]: 990,
    });
  });

  it('counts beside a listener that throws: the decisions stand, every one counted, the throws in listener errors', async () => {
    const errors: unknown[] = [];
    const limiter = createLimiter(
      'token-bucket',
      { limit: 2, windowMs: 1000 },
      { clock: new ManualClock(0), name: 'free', onError: (error) => errors.push(error) },
    );
    limiter.addDecisionListener(() => {
      throw new Error('a broken listener');
    });
    const registry = new Registry();
    registerMetrics(limiter, { registry, name: 'api' });
    const decisions = [limiter.consume('k'), limiter.consume('k'), limiter.consume('k')];
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, false]);
    expect(await decisionCounts(registry)).toEqual(tallied('api', 'free', decisions));
    expect((await samples(registry)).get('ratelab_listener_errors_total{limiter="api",tier="free"}')).toBe(3);
    expect(errors).toHaveLength(1); // reported once, then only counted
  });

  it('has no decision-time histogram (a synchronous limiter), and a keys gauge of its size at each scrape', async () => {
    const clock = new ManualClock(0);
    const limiter = createLimiter('token-bucket', { limit: 1, windowMs: 1000 }, { clock, name: 'free', idleMs: 1000 });
    const registry = new Registry();
    registerMetrics(limiter, { registry, name: 'api' });
    for (const key of ['a', 'b', 'c']) limiter.consume(key);
    const found = await samples(registry);
    expect([...found.keys()].filter((s) => s.startsWith('ratelab_decision_duration'))).toEqual([]);
    expect(found.get('ratelab_keys{limiter="api",tier="free"}')).toBe(3);
    clock.advance(5000);
    limiter.prune();
    expect((await samples(registry)).get('ratelab_keys{limiter="api",tier="free"}')).toBe(0);
  });

  it('1e5 keys make no more series: ratelab_ series are bounded by tiers x outcomes (+ keys, listener errors)', async () => {
    const registry = new Registry();
    const tiers = ['free', 'pro'];
    for (const tier of tiers) {
      const limiter = createLimiter('token-bucket', { limit: 1, windowMs: 60_000 }, { name: tier });
      registerMetrics(limiter, { registry, name: 'api' });
      for (let i = 0; i < 50_000; i++) limiter.consume(`user-${i}`, i % 3 === 0 ? 2 : 1);
    }
    const found = await samples(registry);
    const names = [...found.keys()];
    // Per tier: 5 outcomes, 1 keys gauge, 1 listener-errors counter; no key in any label.
    expect(names.length).toBe(tiers.length * (5 + 2));
    expect(names.filter((s) => s.includes('user-'))).toEqual([]);
    expect(found.get(series('api', 'free', 'allowed'))! + found.get(series('api', 'free', 'denied'))!).toBe(50_000);
    expect(found.get('ratelab_keys{limiter="api",tier="pro"}')).toBe(50_000);
  });
});

describeRedis('registerMetrics on the Redis limiter', () => {
  it.each(['open', 'closed'] as const)(
    'counts its decisions, then its fail mode %s once Redis is gone, each under its outcome; every one timed',
    async (failMode) => {
      await withFailingRedis(async (server, redis) => {
        const limiter = createRedisLimiter(
          'token-bucket',
          { limit: 3, windowMs: 60_000 },
          { redis, failMode, timeoutMs: 50, name: 'free', prefix: `metrics-${failMode}:` },
        );
        const registry = new Registry();
        registerMetrics(limiter, { registry, name: 'api' });
        const decisions: RedisDecision[] = [];
        for (let i = 0; i < 5; i++) decisions.push(await limiter.consume('k'));
        expect(decisions.map((d) => d.reason)).toEqual(['redis', 'redis', 'redis', 'redis', 'redis']);
        await server.kill();
        for (let i = 0; i < 4; i++) decisions.push(await limiter.consume('k'));
        expect(decisions.slice(5).map((d) => d.reason)).toEqual(Array(4).fill(`fail-${failMode}`));
        const want = tallied('api', 'free', decisions);
        expect(want).toEqual({
          [series('api', 'free', 'allowed')]: 3,
          [series('api', 'free', 'denied')]: 2,
          [series('api', 'free', failMode === 'open' ? 'failed-open' : 'failed-closed')]: 4,
        });
        expect(await decisionCounts(registry)).toEqual(want);
        const found = await samples(registry);
        expect(found.get('ratelab_decision_duration_seconds_count{limiter="api",tier="free"}')).toBe(9);
        // Redis keeps the keys: no in-process keys gauge.
        expect([...found.keys()].filter((s) => s.startsWith('ratelab_keys'))).toEqual([]);
      });
    },
  );

  it("shows the server's breaker open while Redis is gone, closed once a decision is Redis's again", async () => {
    await withFailingRedis(async (server, redis) => {
      const limiter = createRedisLimiter(
        'gcra',
        { limit: 100, windowMs: 60_000 },
        { redis, timeoutMs: 50, retryRedisAfterMs: 50, name: 'free', prefix: 'metrics-breaker:' },
      );
      const registry = new Registry();
      registerMetrics(limiter, { registry, name: 'api' });
      const breaker = async () =>
        (await samples(registry)).get('ratelab_redis_breaker_open{limiter="api",node="server"}');
      expect((await limiter.consume('k')).reason).toBe('redis');
      expect(await breaker()).toBeUndefined(); // never opened: no series yet
      await server.kill();
      expect((await limiter.consume('k')).reason).toBe('fail-open');
      expect(await breaker()).toBe(1);
      await server.restart();
      // The client reconnects by itself; each call after retryRedisAfterMs probes the node.
      for (let tries = 0; (await limiter.consume('k')).reason !== 'redis'; tries++) {
        if (tries > 300) throw new Error('Redis decisions did not come back');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await breaker()).toBe(0);
    });
  });
});
