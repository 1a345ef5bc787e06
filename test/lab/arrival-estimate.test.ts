import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_ARRIVALS, checkArrivalCap, estimateArrivals } from '../../src/scenario/arrival-estimate.js';
import { builtinScenarios } from '../../src/scenario/builtins.js';
import { parseScenario } from '../../src/scenario/load-scenario.js';
import type { Scenario } from '../../src/scenario/scenario.js';
import { createSource } from '../../src/traffic/stream.js';
import { Random } from '../../src/traffic/random.js';
import { RatelabError } from '../../src/core/errors.js';

/**
 * What source `i` of `scenario` really makes within the duration; a closed loop is driven
 * by a limiter that denies everything with a Retry-After of 0 (so every client retries as
 * fast and as often as it can: the most it can make).
 */
function actualArrivals(scenario: Scenario, i: number): number {
  const source = createSource(scenario.sources[i] as Scenario['sources'][number], new Random(scenario.seed, i));
  let count = 0;
  for (let t = source.peek(); t < scenario.durationMs; t = source.peek()) {
    const arrival = source.take();
    source.react?.(arrival, false, 0, true);
    count += 1;
  }
  return count;
}

function scenario(sources: string[], duration = '10s'): Scenario {
  return parseScenario(
    [
      'name: s',
      'description: d',
      'policy: { limit: 10, window: 1s }',
      `duration: ${duration}`,
      'seed: 7',
      'sources:',
      ...sources.map((s) => `  - ${s}`),
    ].join('\n'),
    's.yaml',
  );
}

describe('the arrival estimate follows the traffic model', () => {
  const builtins = builtinScenarios();

  it.each(builtins.map((s) => [s.name, s]))(
    '%s: exact for steady and burst sources, close for Poisson, at most for retry clients',
    (_, s) => {
      for (const [i, estimate] of estimateArrivals(s).entries()) {
        const spec = s.sources[i] as Scenario['sources'][number];
        const actual = actualArrivals(s, i);
        if (spec.kind === 'steady' || spec.kind === 'burst') expect(estimate.arrivals).toBe(actual);
        if (spec.kind === 'poisson')
          expect(Math.abs(actual - estimate.arrivals)).toBeLessThanOrEqual(5 * Math.sqrt(estimate.arrivals));
        if (spec.kind === 'retry') expect(actual).toBeLessThanOrEqual(estimate.arrivals);
        if (spec.kind === 'onoff') expect(estimate.arrivals).toBeGreaterThan(0);
      }
    },
  );

  // A retry source's figure is a bound (one arrival per client per ms at most), not what it
  // makes: throttled-clients' retry-on-429 tenant is bounded by 4,000,000 and makes ~54,000.
  it('every built-in fits the default cap', () => {
    for (const s of builtins)
      expect(estimateArrivals(s).reduce((sum, e) => sum + e.arrivals, 0)).toBeLessThan(DEFAULT_MAX_ARRIVALS / 4);
  });

  it('a self-throttled retry source is bounded by its throttle, not its clients', () => {
    const throttled = builtins.find((s) => s.name === 'throttled-clients');
    const estimate = estimateArrivals(throttled as Scenario)[1];
    // 100 per 1 s on one key over 20 s: at most 100 x (20 + 1).
    expect(estimate?.arrivals).toBe(2100);
  });

  it.each([
    ['{ kind: steady, rate: 3/s, start: 1s, end: 20s }', 27],
    ['{ kind: burst, at: 1s, count: 7, every: 2s }', 35],
    ['{ kind: burst, at: 1s, count: 7, every: 2s, times: 100 }', 35],
    ['{ kind: retry, clients: 3, think: 1s, maxRetries: 4 }', 3 * 10 * 5],
    ['{ kind: retry, clients: 3, think: 1s, maxRetries: 100000 }', 3 * 10_000],
  ])('%s -> %d (a scenario of 10 s)', (source, expected) => {
    const s = scenario([source]);
    expect(estimateArrivals(s)[0]?.arrivals).toBe(expected);
    if (!source.includes('retry')) expect(actualArrivals(s, 0)).toBe(expected);
  });

  it('an onoff source counts its share of time on and its on/off periods', () => {
    // Pareto means: on 2 x 100 ms = 200 ms, off 2 x 300 ms = 600 ms: on a quarter of the time, 100 periods in 80 s.
    const s = scenario(
      ['{ kind: onoff, rate: 10/s, on: { alpha: 2, min: 100ms }, off: { alpha: 2, min: 300ms } }'],
      '80s',
    );
    expect(estimateArrivals(s)[0]?.arrivals).toBe(200 + 100);
  });
});

describe('checkArrivalCap', () => {
  it('names the file, the largest source, its figure and the total', () => {
    const s = scenario(['{ kind: burst, at: 0, count: 3 }', '{ kind: poisson, rate: 2/ms }']);
    expect(() => checkArrivalCap(s, 20_003)).not.toThrow();
    const error = (() => {
      try {
        checkArrivalCap(s, 20_002);
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(RatelabError);
    expect(error).toMatchObject({
      code: 'TOO_MANY_ARRIVALS',
      field: 's.yaml: sources[1]',
      message:
        's.yaml: sources[1] (poisson, about 2/ms for 10s) would make 20,000 arrivals, 20,003 for the whole scenario: above the cap of 20,002 per scenario (--max-arrivals N raises it)',
    });
  });
});
