import { z } from 'zod';
import { parseDuration } from '../core/duration.js';
import { describeValue } from '../core/errors.js';

/** A whole number from `min` to `max`; the message quotes what was given. */
export function wholeNumber(max: number, min = 1) {
  const what = min === 1 ? 'a positive integer' : `an integer from ${min}`;
  const message = (issue: { input?: unknown }) => `expected ${what} up to ${max}, got ${describeValue(issue.input)}`;
  return z.number({ error: message }).int({ error: message }).min(min, { error: message }).max(max, { error: message });
}

/** A finite number from `min` (inclusive) to `max` (inclusive). */
export function boundedNumber(min: number, max: number, what = 'a number') {
  const message = (issue: { input?: unknown }) =>
    `expected ${what} from ${min} to ${max}, got ${describeValue(issue.input)}`;
  return z.number({ error: message }).min(min, { error: message }).max(max, { error: message });
}

const DURATION_HINT = 'expected a duration such as 250ms, 1s, 1m or 1h';

/** `250ms`, `1s`, `1m`, `1h`, or a number of milliseconds; always whole positive ms. */
export const duration = z
  .union([z.string(), z.number()], { error: (issue) => `${DURATION_HINT}, got ${describeValue(issue.input)}` })
  .describe('A duration: 250ms, 1s, 1.5s, 1m, 1h, 1d, or a number of milliseconds')
  .transform((value, ctx) => {
    try {
      return parseDuration(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: `${DURATION_HINT}, got ${describeValue(value)}` });
      return z.NEVER;
    }
  });

/** A point in time from a start: `0` or a duration; whole ms >= 0. */
export const offset = z
  .union([z.literal(0), z.literal('0'), duration], {
    error: (issue) => `${DURATION_HINT} (or 0), got ${describeValue(issue.input)}`,
  })
  .transform((value) => Number(value));

const RATE = /^(\d+(?:\.\d+)?)\s*\/\s*(ms|s|m|h)$/;
const PER_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const RATE_HINT = 'expected a rate such as 50 (per second), 50/s, 3000/m or 2/ms';

/** Requests per unit of time: a number (per second) or `N/ms`, `N/s`, `N/m`, `N/h`. Parsed to requests per millisecond, > 0. */
export const rate = z
  .union([z.number(), z.string()], { error: (issue) => `${RATE_HINT}, got ${describeValue(issue.input)}` })
  .describe('Requests per unit of time: a number (per second), or N/ms, N/s, N/m, N/h')
  .transform((value, ctx) => {
    const perMs = ratePerMs(value);
    if (perMs === undefined) {
      ctx.addIssue({ code: 'custom', message: `${RATE_HINT}, got ${describeValue(value)}` });
      return z.NEVER;
    }
    return perMs;
  });

function ratePerMs(value: number | string): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? value / 1000 : undefined;
  const match = RATE.exec(value.trim());
  if (!match) return undefined;
  const perMs = Number(match[1]) / (PER_MS[match[2] as string] as number);
  // Hundreds of digits read as Infinity: no finite stream of arrivals.
  return perMs > 0 && Number.isFinite(perMs) ? perMs : undefined;
}
