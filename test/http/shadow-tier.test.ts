import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, RateLimiterRegistry } from '../../src/index.js';
import type { DecisionEvent } from '../../src/core/decision-event.js';
import { rateLimit, rateLimitResult, type RateLimitResult, type ShadowHeaders } from '../../src/http/middleware.js';
import { loadTiers } from '../../src/tiers/load-tiers.js';
import { getMany, listen, type Reply } from './support.js';

// test/fixtures/tiers/shadow.yaml: `enforced` (the default) and `trial` (mode: shadow, the
// client `trialist`), both fixed-window 10 per hour; the clock never moves, so one window.
const TIERS = fileURLToPath(new URL('../fixtures/tiers/shadow.yaml', import.meta.url));
const REQUESTS = 1000;
const LIMIT = 10;

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** The tiers behind the middleware, every request's key the `client` header; events of every tier's limiter recorded. */
async function serveTiers(shadowHeaders: ShadowHeaders) {
  const registry = new RateLimiterRegistry(loadTiers(TIERS), { clock: new ManualClock(0) });
  const events: DecisionEvent[] = [];
  for (const tier of registry.tiers) {
    const limiter = registry.limiterOf(tier);
    if (limiter !== 'unlimited') limiter.addDecisionListener((event) => events.push(event));
  }
  const limit = rateLimit({
    registry,
    key: (req) => req.headers.client as string,
    headers: { ietf: true },
    shadowHeaders,
  });
  const results: RateLimitResult[] = [];
  let handled = 0;
  const server = await listen((req: IncomingMessage, res: ServerResponse) => {
    void limit(req, res, () => {
      handled += 1;
      res.end('ok');
    }).then(() => results.push(rateLimitResult(req) as RateLimitResult));
  });
  servers.push(server);
  const send = (client: string) => getMany(server.url, REQUESTS, { headers: { client } });
  return { send, events, results, handled: () => handled, registry };
}

const FIELDS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit-policy',
  'ratelimit',
  'retry-after',
];

function fieldsOf(reply: Reply, without: string[] = []): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const name of FIELDS) {
    const value = reply.headers[name];
    if (typeof value === 'string' && !without.includes(name)) fields[name] = value;
  }
  return fields;
}

/** The indexes of the replies (or results) for which `test` holds. */
function indexesWhere<T>(items: readonly T[], test: (item: T) => boolean): number[] {
  return items.flatMap((item, i) => (test(item) ? [i] : []));
}

describe('a tier in mode: shadow', () => {
  it('lets 1,000 requests through at a limit of 10 and counts 990 shadow-denied: exactly the requests the enforcing tier denies on the same traffic', async () => {
    const { send, events, results, handled, registry } = await serveTiers('none');
    expect([registry.modeOf('trial'), registry.modeOf('enforced')]).toEqual(['shadow', 'enforce']);
    const enforced = await send('someone');
    const enforcedResults = results.splice(0);
    const enforcedEvents = events.splice(0);
    const trial = await send('trialist');

    // why: the enforcing tier admits the first 10 of one window and answers the other 990 with 429.
    const denied = indexesWhere(enforced, (r) => r.status === 429);
    expect(denied).toHaveLength(REQUESTS - LIMIT);
    expect(indexesWhere(enforcedResults, (r) => r.outcome === 'denied')).toEqual(denied);
    expect(enforcedEvents.filter((e) => e.outcome === 'denied')).toHaveLength(REQUESTS - LIMIT);

    // why: the trial tier decides the same way, state and order alike, and denies nothing.
    expect(trial.every((r) => r.status === 200 && r.body === 'ok')).toBe(true);
    expect(handled()).toBe(LIMIT + REQUESTS);
    expect(indexesWhere(results, (r) => r.outcome === 'shadow-denied')).toEqual(denied);
    expect(indexesWhere(results, (r) => r.outcome === 'allowed')).toEqual(
      indexesWhere(enforced, (r) => r.status === 200),
    );
    // why: the tier's limiter counts its own shadow denials; the middleware overrides nothing.
    expect(events.map((e) => [e.limiter, e.outcome]).filter(([, o]) => o === 'shadow-denied')).toHaveLength(
      REQUESTS - LIMIT,
    );
    expect(events.every((e) => e.limiter === 'trial')).toBe(true);
    expect(results.some((r) => r.overridden)).toBe(false);
    // why: the figures of a shadow denial are the denial's (nothing remaining, the window's wait).
    expect(results[LIMIT]?.decision).toMatchObject({ allowed: true, shadowDenied: true, remaining: 0 });
    expect(results[LIMIT]?.decision?.retryAfterMs).toBe(enforcedResults[LIMIT]?.decision?.retryAfterMs);

    // why: shadowHeaders 'none': no rate-limit field on any response of the trial tier.
    expect(trial.filter((r) => Object.keys(fieldsOf(r)).length > 0)).toEqual([]);
  });

  it("with shadowHeaders 'as-enforced' the trial's responses carry the enforcing tier's fields, Retry-After aside", async () => {
    const { send } = await serveTiers('as-enforced');
    const enforced = await send('someone');
    const trial = await send('trialist');
    // why: the policy names differ (the tier's own name); everything else is the same answer.
    const renamed = (fields: Record<string, string>) =>
      Object.fromEntries(
        Object.entries(fields).map(([name, value]) => [name, value.replaceAll('"enforced"', '"trial"')]),
      );
    expect(trial.map((r) => fieldsOf(r))).toEqual(enforced.map((r) => renamed(fieldsOf(r, ['retry-after']))));
    expect(enforced[LIMIT]?.headers['retry-after']).toBe('3600');
    expect(trial.some((r) => r.headers['retry-after'] !== undefined)).toBe(false);
  });
});
