import { RatelabError } from '../../core/errors.js';
import { parseDuration } from '../../core/duration.js';

/** The store is unreachable for times t with `startMs <= t < endMs` (ms on the scenario's clock). */
export interface Outage {
  startMs: number;
  endMs: number;
}

/** Whether the store is unreachable at `t`. */
export function isDown(outage: Outage | undefined, t: number): boolean {
  return outage !== undefined && t >= outage.startMs && t < outage.endMs;
}

/**
 * Parses `START-END` such as `10s-20s` or `0-500ms` into an {@link Outage}. Each side is a
 * duration (`parseDuration`) or 0; END must be after START. Throws `INVALID_ARGUMENT`
 * naming `field`.
 */
export function parseOutage(text: string, field = 'outage'): Outage {
  const parts = text.split('-');
  if (parts.length !== 2) {
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `${field}: expected START-END such as 10s-20s, got ${JSON.stringify(text)}`,
      { field },
    );
  }
  const [startMs, endMs] = parts.map((part) => parseTime(part, field)) as [number, number];
  if (endMs <= startMs) {
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `${field}: the end must be after the start, got ${JSON.stringify(text)}`,
      { field },
    );
  }
  return { startMs, endMs };
}

/**
 * A duration that may be zero (`0`, `0ms`, `0s`), in whole ms: an outage from the start,
 * an ideal network. Throws `INVALID_DURATION` naming `field` otherwise.
 */
export function parseTime(text: string, field: string): number {
  if (/^\s*0+(\.0+)?\s*(ms|s|m|h|d)?\s*$/.test(text)) return 0;
  return parseDuration(text, field);
}
