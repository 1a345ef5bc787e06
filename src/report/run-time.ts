import { formatDuration } from '../core/duration.js';

/**
 * A time of a run as a reader sees it: ms since the run's start (`originMs`, its
 * timeline's origin). A scenario starts at 0, so its times are unchanged; a trace starts
 * at its first arrival, so one recorded in epoch ms reads `140ms`, not `29409120.015m`.
 * Every time a report shows (sentences, chart axes, strips, --from/--to, HTML axes) is one.
 */
export function sinceStart(ms: number, originMs: number): number {
  return ms - originMs;
}

/** {@link sinceStart} as a duration: `1.5s` after the run's start. */
export function formatRunTime(ms: number, originMs: number): string {
  return formatDuration(sinceStart(ms, originMs));
}
