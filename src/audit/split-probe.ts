import { drain } from './drain.js';
import type { Identity } from './identities.js';
import type { ProbeClient } from './probe-client.js';
import { pollStaircase, type Staircase } from './staircase.js';

/** Options of {@link probeSplit}. */
export interface SplitProbeOptions {
  identity: Identity;
  quota: number;
  /** The window as the first reset suggests it, ms (the second half is sent 0.4 of it later). */
  windowMs: number;
  /** Polling stops at this time, ms after the start. */
  untilMs: number;
  /** Polling stops once it has sent this many requests. */
  maxShots: number;
  minGapMs: number;
}

/**
 * Tells a sliding log from a fixed window: half the quota now, the rest 0.4 of a window
 * later, then polls. A sliding log returns the two halves a window after each was sent; a
 * window resetting returns both at once (and one that resets between the halves admits
 * more than the rest at the second). The exact models scored on these shots decide.
 */
export async function probeSplit(client: ProbeClient, options: SplitProbeOptions): Promise<Staircase> {
  const { identity, quota } = options;
  const first = await drain(client, 'split', identity, { cap: Math.ceil(quota / 2) });
  await client.sleepUntil(first.startMs + 0.4 * options.windowMs);
  const second = await drain(client, 'split', identity, { cap: 2 * quota });
  const exhaustedMs = second.stoppedAt?.sentMs ?? client.now();
  const staircase = await pollStaircase(client, {
    probe: 'split',
    identity,
    exhaustedMs,
    cap: 2 * quota,
    untilMs: Math.min(options.untilMs, first.startMs + 1.6 * options.windowMs),
    maxShots: options.maxShots,
    minGapMs: options.minGapMs,
    done: (returns) => returns.length >= 2 && returns.reduce((sum, r) => sum + r.count, 0) >= quota,
  });
  return { ...staircase, shots: [...first.shots, ...second.shots, ...staircase.shots] };
}
