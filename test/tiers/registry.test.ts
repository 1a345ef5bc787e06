import { describe, expect, it } from 'vitest';
import { ManualClock, RateLimiterRegistry, type TiersConfig } from '../../src/index.js';
import { loadTiers, parseTiers } from '../../src/tiers/load-tiers.js';
import { expectRatelabError } from '../support/errors.js';
import { tiersFixture as fixture } from '../support/fixtures.js';

function registry(options: ConstructorParameters<typeof RateLimiterRegistry>[1] = {}): RateLimiterRegistry {
  return new RateLimiterRegistry(loadTiers(fixture('valid.yaml')), { clock: new ManualClock(0), ...options });
}

/** How many of `n` unit requests at one instant `clientId` gets. */
function admittedOf(limiters: RateLimiterRegistry, clientId: string, n: number): number {
  let admitted = 0;
  for (let i = 0; i < n; i++) admitted += limiters.allow(clientId) ? 1 : 0;
  return admitted;
}

describe('RateLimiterRegistry: a tier of several limits', () => {
  it('admits only while every limit of the tier admits, and answers each limit by its name', () => {
    const clock = new ManualClock(0);
    const limiters = new RateLimiterRegistry(loadTiers(fixture('composite.yaml')), { clock });
    // pro: token-bucket 10/1s + sliding-counter 10000/1d (daily); the burst limit binds first.
    expect(admittedOf(limiters, 'acme', 12)).toBe(10);
    const denied = limiters.consume('acme');
    expect(denied).toMatchObject({ allowed: false, tier: 'pro', limit: 10, remaining: 0, retryAfterMs: 100 });
    expect(denied.limits?.map((limit) => [limit.name, limit.allowed, limit.remaining])).toEqual([
      ['1s', false, 0],
      ['daily', true, 9990],
    ]);
  });
});

describe('RateLimiterRegistry', () => {
  it('lists its tiers in file order', () => {
    expect(registry().tiers).toEqual(['free', 'premium', 'reports', 'internal']);
  });

  it('puts an unknown client on the default tier, and a listed one on its tier', () => {
    const limiters = registry();
    expect(limiters.tierOf('someone')).toBe('free');
    expect(limiters.tierOf('acme')).toBe('premium');
    expect(limiters.consume('someone')).toEqual({
      allowed: true,
      limit: 10,
      remaining: 9,
      retryAfterMs: 0,
      resetMs: 100,
      tier: 'free',
    });
    expect(limiters.consume('acme')).toEqual({
      allowed: true,
      limit: 200,
      remaining: 199,
      retryAfterMs: 0,
      resetMs: 10,
      tier: 'premium',
    });
    expect(limiters.consume('auditor', 5)).toEqual({
      allowed: true,
      limit: 5,
      remaining: 0,
      retryAfterMs: 0,
      resetMs: 60_000,
      tier: 'reports',
    });
  });

  it('gives every client its own quota within a tier (free: 10, premium: burst 200)', () => {
    const limiters = registry();
    expect(admittedOf(limiters, 'alice', 15)).toBe(10);
    expect(admittedOf(limiters, 'bob', 15)).toBe(10);
    expect(admittedOf(limiters, 'acme', 250)).toBe(200);
  });

  it('always admits an unlimited tier, with Infinity limit and remaining', () => {
    const limiters = registry();
    expect(admittedOf(limiters, 'ops-bot', 10_000)).toBe(10_000);
    expect(limiters.consume('ops-bot', 1e9)).toEqual({
      allowed: true,
      limit: Infinity,
      remaining: Infinity,
      retryAfterMs: 0,
      resetMs: 0,
      tier: 'internal',
    });
    expect(limiters.limiterOf('internal')).toBe('unlimited');
    expectRatelabError(() => limiters.consume('ops-bot', -1), 'INVALID_COST', 'cost');
  });

  it('asks a resolver first, then the clients map, then the default', () => {
    const limiters = registry({
      resolve: (id) =>
        id.startsWith('key_live_') ? 'premium' : id === 'acme' ? undefined : id === 'root' ? 'internal' : undefined,
    });
    expect(limiters.tierOf('key_live_123')).toBe('premium');
    expect(limiters.tierOf('acme')).toBe('premium');
    expect(limiters.tierOf('root')).toBe('internal');
    expect(limiters.tierOf('auditor')).toBe('reports');
    expect(limiters.tierOf('nobody')).toBe('free');
  });

  it('throws UNKNOWN_TIER when the resolver names a tier that does not exist', () => {
    const limiters = registry({ resolve: () => 'gold' });
    const error = expectRatelabError(() => limiters.consume('x'), 'UNKNOWN_TIER', 'tier');
    expect(error.message).toBe('resolve(): no tier named "gold" (tiers: free, premium, reports, internal)');
    expectRatelabError(() => limiters.allow('x'), 'UNKNOWN_TIER');
  });

  it('refuses a hand-built config whose default or clients name a missing tier', () => {
    const config: TiersConfig = parseTiers('tiers:\n  a: unlimited\ndefault: a\n');
    expectRatelabError(() => new RateLimiterRegistry({ ...config, default: 'b' }), 'UNKNOWN_TIER');
    expectRatelabError(() => new RateLimiterRegistry({ ...config, clients: { x: 'c' } }), 'UNKNOWN_TIER');
  });

  it('builds a tier in mode: shadow with enforce: false (it admits what it would deny) and names each limiter after its tier', () => {
    const limiters = new RateLimiterRegistry(loadTiers(fixture('shadow.yaml')), { clock: new ManualClock(0) });
    expect([limiters.modeOf('trial'), limiters.modeOf('enforced')]).toEqual(['shadow', 'enforce']);
    const events: [string | undefined, string][] = [];
    for (const tier of limiters.tiers) {
      const limiter = limiters.limiterOf(tier);
      if (limiter !== 'unlimited') limiter.addDecisionListener((e) => events.push([e.limiter, e.outcome]));
    }
    expect(admittedOf(limiters, 'trialist', 11)).toBe(11);
    expect(limiters.consume('trialist')).toMatchObject({
      allowed: true,
      shadowDenied: true,
      remaining: 0,
      tier: 'trial',
    });
    expect(admittedOf(limiters, 'someone', 11)).toBe(10);
    expect(events.filter(([, outcome]) => outcome !== 'allowed')).toEqual([
      ['trial', 'shadow-denied'],
      ['trial', 'shadow-denied'],
      ['enforced', 'denied'],
    ]);
    // why: enforce: false among the shared options puts every limiting tier in shadow.
    const all = new RateLimiterRegistry(loadTiers(fixture('valid.yaml')), { enforce: false });
    expect(all.tiers.map((tier) => all.modeOf(tier))).toEqual(['shadow', 'shadow', 'shadow', 'enforce']);
  });

  it('passes limiter options to every tier (a shared clock)', () => {
    const clock = new ManualClock(0);
    const limiters = new RateLimiterRegistry(loadTiers(fixture('valid.yaml')), { clock });
    expect(admittedOf(limiters, 'alice', 11)).toBe(10);
    clock.advance(100);
    expect(admittedOf(limiters, 'alice', 2)).toBe(1);
  });
});
