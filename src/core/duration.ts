import { RatelabError } from './errors.js';

/**
 * The largest time, in ms, the lab takes (a trace's time, a scenario's duration):
 * 8,640,000,000,000,000 ms, 100,000,000 days from 0, the range of a JavaScript Date, so
 * any epoch-ms timestamp fits. Every time below it is a whole number the limiters' and the
 * oracle's arithmetic holds exactly (it is under 2^53).
 */
export const MAX_TIME_MS = 8_640_000_000_000_000;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/;

/**
 * Parses a duration such as `250ms`, `1s`, `1.5s`, `1m`, `1h` or `1d` into whole
 * milliseconds. A bare number is taken as milliseconds. The result must be a positive
 * whole number of milliseconds; anything else throws `INVALID_DURATION` naming `field`.
 */
export function parseDuration(input: string | number, field = 'duration'): number {
  const ms = typeof input === 'number' ? input : fromText(input.trim());
  if (ms === undefined || !Number.isInteger(ms) || ms <= 0 || !Number.isSafeInteger(ms)) {
    throw new RatelabError(
      'INVALID_DURATION',
      `${field}: expected a duration such as 250ms, 1s, 1m or 1h (a positive whole number of milliseconds), got ${JSON.stringify(input)}`,
      { field },
    );
  }
  return ms;
}

function fromText(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  const match = DURATION.exec(text);
  if (!match) return undefined;
  const value = Number(match[1]) * (UNIT_MS[match[2] as string] as number);
  // 1.5s is 1500 ms; 1.0005s is not a whole number of milliseconds and is refused.
  return Math.abs(value - Math.round(value)) < 1e-9 ? Math.round(value) : value;
}

/** Formats milliseconds compactly for people: 1500 -> "1.5s", 60000 -> "1m". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    const size = UNIT_MS[unit] as number;
    // Whole thousandths of the unit; compared with a tolerance since 16086 / 1000 * 1000 is 16085.999...
    const thousandths = (ms / size) * 1000;
    if (ms >= size && Math.abs(thousandths - Math.round(thousandths)) < 1e-6)
      return `${+(ms / size).toFixed(3)}${unit}`;
  }
  return `${+ms.toFixed(3)}ms`;
}
