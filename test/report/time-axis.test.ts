import { describe, expect, it } from 'vitest';
import { formatDuration } from '../../src/core/duration.js';
import { roundTimes } from '../../src/report/text/time-axis.js';

describe('the round times of a chart axis', () => {
  it.each<{ toMs: number; labels: string[]; why: string }>([
    {
      toMs: 1000,
      labels: ['0ms', '200ms', '400ms', '600ms', '800ms', '1s'],
      why: 'below a minute a step: 1, 2 or 5 x 10^k ms',
    },
    { toMs: 30_000, labels: ['0ms', '10s', '20s', '30s'], why: 'seconds still step decimally' },
    {
      toMs: 600_000,
      labels: ['0ms', '2m', '4m', '6m', '8m', '10m'],
      why: 'past a minute, minutes a clock counts (200 s read 200s 400s 600s)',
    },
    { toMs: 3_600_000, labels: ['0ms', '15m', '30m', '45m', '1h'], why: 'an hour in quarters, not 1000s 2000s 50m' },
    { toMs: 86_400_000, labels: ['0ms', '6h', '12h', '18h', '1d'], why: 'a day in 6-hour steps' },
    { toMs: 60 * 86_400_000, labels: ['0ms', '14d', '28d', '42d', '56d', '60d'], why: 'beyond a week: whole weeks' },
  ])('0 to $toMs ms: $why', ({ toMs, labels }) => {
    expect(roundTimes(0, toMs, 5, 0).map(formatDuration)).toEqual(labels);
  });
});
