import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/index.js';
import { run } from '../../src/cli/main.js';
import { bufferIO } from '../../src/report/io.js';
import { parseSamples } from '../../src/report/data/prometheus-text.js';
import { get, getMany } from '../http/support.js';
import { tiersFixture } from '../support/fixtures.js';
import { startServe } from './run-serve.js';

// test/fixtures/tiers/shadow.yaml: `enforced` (default) and `trial` (mode: shadow, client
// `trialist`), both fixed-window 10 per hour; a ManualClock that never moves keeps one window.

/** `ratelab_decisions_total` of a /metrics answer, as `tier/outcome` -> count. */
async function decisions(metricsUrl: string): Promise<Record<string, number>> {
  const reply = await get(metricsUrl);
  expect(reply.status).toBe(200);
  expect(reply.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  const counts: Record<string, number> = {};
  for (const sample of parseSamples(reply.body)) {
    if (sample.name !== 'ratelab_decisions_total') continue;
    expect(sample.labels.limiter).toBe('serve');
    counts[`${sample.labels.tier}/${sample.labels.outcome}`] = sample.value;
  }
  return counts;
}

describe('ratelab serve --metrics', () => {
  it("exposes each tier's decisions by outcome on the same port; /metrics is neither limited nor counted", async () => {
    const serve = await startServe({ tiers: tiersFixture('shadow.yaml'), metrics: true, clock: new ManualClock(0) });
    try {
      expect(serve.metricsUrl).toBe(`${serve.url}/metrics`);
      const metricsUrl = serve.metricsUrl as string;
      expect(Object.values(await decisions(metricsUrl)).every((count) => count === 0)).toBe(true);
      const enforced = await getMany(serve.url, 13);
      const trial = await getMany(serve.url, 13, { headers: { 'X-API-Key': 'trialist' } });
      expect(enforced.filter((r) => r.status === 429)).toHaveLength(3);
      expect(trial.every((r) => r.status === 200)).toBe(true);
      // why: the address's quota is spent, yet /metrics still answers, many times over.
      for (let i = 0; i < 3; i++) expect((await get(metricsUrl)).status).toBe(200);
      expect(await decisions(metricsUrl)).toEqual({
        'enforced/allowed': 10,
        'enforced/denied': 3,
        'enforced/shadow-denied': 0,
        'enforced/failed-open': 0,
        'enforced/failed-closed': 0,
        'trial/allowed': 10,
        'trial/denied': 0,
        'trial/shadow-denied': 3,
        'trial/failed-open': 0,
        'trial/failed-closed': 0,
      });
      // why: shadow headers default to none: the trial tier sends no rate-limit field.
      expect(trial[12]!.headers['x-ratelimit-remaining']).toBeUndefined();
      expect(enforced[12]!.headers['x-ratelimit-remaining']).toBe('0');
    } finally {
      expect(await serve.stop()).toBe(0);
    }
    expect(serve.io.err()).toMatch(/ratelab serve: metrics on http:\/\/127\.0\.0\.1:\d+\/metrics\n/);
  });

  it('serves them on --metrics-port instead: /metrics on the API port is then an API path like any other', async () => {
    const serve = await startServe({
      algorithm: 'fixed-window',
      limit: 2,
      window: '1h',
      metricsPort: 0,
      clock: new ManualClock(0),
    });
    try {
      const metricsUrl = serve.metricsUrl as string;
      expect(metricsUrl).not.toContain(serve.url);
      const replies = await getMany(`${serve.url}/metrics`, 3);
      expect(replies.map((r) => r.status)).toEqual([200, 200, 429]);
      expect(JSON.parse(replies[0]!.body)).toMatchObject({ ok: true, tier: 'default' });
      const counts = await decisions(metricsUrl);
      expect([counts['default/allowed'], counts['default/denied']]).toEqual([2, 1]);
      expect((await get(metricsUrl.replace(/\/metrics$/, '/'))).status).toBe(404);
    } finally {
      expect(await serve.stop()).toBe(0);
    }
  });

  it('--shadow-headers as-enforced: a tier in shadow sends the fields enforcing would, Retry-After aside', async () => {
    const serve = await startServe({
      tiers: tiersFixture('shadow.yaml'),
      shadowHeaders: 'as-enforced',
      clock: new ManualClock(0),
    });
    try {
      const trial = await getMany(serve.url, 11, { headers: { 'X-API-Key': 'trialist' } });
      expect(trial.map((r) => r.status)).toEqual(Array.from({ length: 11 }, () => 200));
      expect([
        trial[10]!.headers['x-ratelimit-remaining'],
        trial[10]!.headers.ratelimit,
        trial[10]!.headers['retry-after'],
      ]).toEqual(['0', '"trial";r=0;t=3600', undefined]);
    } finally {
      expect(await serve.stop()).toBe(0);
    }
  });

  it.each([
    [['--shadow-headers', 'all'], 'ratelab: --shadow-headers: expected none or as-enforced, got "all"\n'],
    [['--metrics-port', '70000'], 'ratelab: --metrics-port: expected a whole number from 0 to 65535, got "70000"\n'],
  ])('refuses %j: exit 2, one line', async (argv, message) => {
    const io = bufferIO();
    expect(await run(['serve', '--port', '0', ...argv], io)).toBe(2);
    expect(io.err()).toBe(message);
  });
});
