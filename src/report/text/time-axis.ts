import { roundWidth } from '../chart-frame.js';
import { formatRunTime } from '../run-time.js';

/**
 * A line of time labels under `width` columns starting at column `indent`: each label at
 * the column of its time (`at(ms)` gives it), left to right, skipping one that would touch
 * the previous (the first starts at its column, the last ends there). Labels read time
 * since the run's start, `originMs`. Returns the line without trailing spaces.
 */
export function timeLabels(
  indent: number,
  width: number,
  times: readonly number[],
  at: (ms: number) => number,
  originMs: number,
): string {
  const line: string[] = Array.from({ length: indent + width + 8 }, () => ' ');
  let free = 0;
  for (const [i, ms] of times.entries()) {
    const text = formatRunTime(ms, originMs);
    const column = indent + Math.min(width - 1, Math.max(0, at(ms)));
    // The first label starts at its column, the last ends there, the others are centred on it.
    const shift = i === 0 ? 0 : i === times.length - 1 ? text.length - 1 : Math.floor(text.length / 2);
    const start = Math.max(free, column - shift);
    if (start > column || start + text.length > line.length) continue;
    for (let i = 0; i < text.length; i++) line[start + i] = text[i] as string;
    free = start + text.length + 1;
  }
  return line.join('').trimEnd();
}

/** Times from `fromMs` to `toMs` (both included), about `count` of them, round as times since the run's start `originMs`. */
export function roundTimes(fromMs: number, toMs: number, count: number, originMs: number): number[] {
  const raw = (toMs - fromMs) / Math.max(1, count);
  const step = raw > MINUTE_MS ? clockStep(raw) : roundWidth(raw);
  const times = [fromMs];
  for (let t = originMs + Math.ceil((fromMs - originMs) / step) * step; t < toMs; t += step)
    if (t > fromMs) times.push(t);
  times.push(toMs);
  return times;
}

const MINUTE_MS = 60_000;

/**
 * Steps a reader counts on a clock, from a minute up: 1 2 5 10 15 30 minutes, 1 2 3 6 12
 * hours, then whole days (1 2 7 and multiples of 7). Decimal steps past a minute read as
 * `1000s 2000s 50m`.
 */
const CLOCK_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440, 2880, 10_080].map((m) => m * MINUTE_MS);

/** The smallest clock step (see {@link CLOCK_STEPS}) of at least `minMs`. */
function clockStep(minMs: number): number {
  const step = CLOCK_STEPS.find((candidate) => candidate >= minMs);
  if (step !== undefined) return step;
  const week = CLOCK_STEPS[CLOCK_STEPS.length - 1] as number;
  return Math.ceil(minMs / week) * week;
}
