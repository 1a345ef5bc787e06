import { drain, type Drain } from './drain.js';
import type { Identity } from './identities.js';
import type { ProbeClient } from './probe-client.js';
import { pollStaircase, type Return } from './staircase.js';

/** Options of {@link probeSplits}. */
export interface SplitProbeOptions {
  /** Fresh identities, one per rung (see {@link splitGaps}). */
  identities: () => Identity;
  quota: number;
  /** The gaps between the two halves, ms, shortest first (see {@link splitGaps}). */
  gapsMs: readonly number[];
  /** Resolves with the recovery's first return (undefined when none came): it tells how long a window is. */
  firstReturn: Promise<Return | undefined>;
  /** When the discovery run started, ms after the audit's start (the first return is a window after it). */
  discoveryStartMs: number;
  /** Polling stops at this time, ms after the start. */
  untilMs: number;
  /** Polling stops once it has sent this many requests. */
  maxShots: number;
  minGapMs: number;
}

/** A split's second half is sent at most this share of a window after its first. */
const MAX_GAP_SHARE = 0.6;
/** Each rung's gap is this many times the one before. */
const GAP_RATIO = 4;

/**
 * The gaps of the ladder: from twice the discovery run's length (a window holds at least
 * that) up to {@link MAX_GAP_SHARE} of the time the audit can wait, each four times the last.
 */
export function splitGaps(discoveryMs: number, waitMs: number): number[] {
  const gaps: number[] = [];
  for (let gap = Math.max(20, 2 * discoveryMs); gap <= MAX_GAP_SHARE * waitMs; gap *= GAP_RATIO) gaps.push(gap);
  return gaps;
}

/**
 * Tells a sliding log from a fixed window: half a quota now, the rest some time later,
 * then polled. A sliding log returns the two halves a window after each was sent; a window
 * returns both at once (and one that resets between the halves admits more than the rest
 * at the second). How long a window is shows only at the recovery's first return, and a
 * split started then would need one and a half windows more, so a ladder of splits starts
 * at once, each rung a fresh client whose second half goes 4 times later than the last
 * rung's, until the first return says the window: the rung with the longest gap under 0.6
 * of it is polled, the others stop. Its shots, like every probe's, are the client's: the
 * models score them all.
 */
export async function probeSplits(client: ProbeClient, options: SplitProbeOptions): Promise<void> {
  const { quota } = options;
  const rungs: Rung[] = [];
  for (const gapMs of options.gapsMs) {
    const identity = options.identities();
    const first = await drain(client, 'split', identity, { cap: Math.ceil(quota / 2) });
    rungs.push({ identity, gapMs, first, second: undefined });
  }
  let windowMs: number | undefined;
  const known = options.firstReturn.then((ret) => {
    windowMs = ret === undefined ? undefined : ret.atMs - options.discoveryStartMs;
  });
  await Promise.all(rungs.map((rung) => sendSecondHalf(client, rung, quota, () => windowMs, known)));
  await known;
  if (windowMs === undefined) return;
  const chosen = chooseRung(rungs, windowMs);
  if (!chosen?.second) return;
  await pollStaircase(client, {
    probe: 'split',
    identity: chosen.identity,
    exhaustedMs: chosen.second.stoppedAt?.sentMs ?? client.now(),
    cap: 2 * quota,
    untilMs: Math.min(options.untilMs, chosen.first.startMs + chosen.gapMs + 1.3 * windowMs),
    maxShots: options.maxShots,
    minGapMs: options.minGapMs,
    done: (returns) => returns.reduce((sum, r) => sum + r.count, 0) >= quota && returns.length >= 2,
  });
}

/** One rung of the ladder: a fresh client, its two halves and the gap between them. */
interface Rung {
  identity: Identity;
  gapMs: number;
  first: Drain;
  second: Drain | undefined;
}

/**
 * Sends a rung's second half at its gap, unless the window is known by then and the gap
 * is too long for it (the halves would fall in two windows, where a log and a window
 * decide alike).
 */
async function sendSecondHalf(
  client: ProbeClient,
  rung: Rung,
  quota: number,
  windowMs: () => number | undefined,
  known: Promise<void>,
): Promise<void> {
  const due = rung.first.startMs + rung.gapMs;
  await Promise.race([client.sleepUntil(due), known]);
  const window = windowMs();
  if (window !== undefined && rung.gapMs > MAX_GAP_SHARE * window) return;
  await client.sleepUntil(due);
  rung.second = await drain(client, 'split', rung.identity, { cap: 2 * quota });
}

/** The rung whose gap is the longest under {@link MAX_GAP_SHARE} of the window, second half sent. */
function chooseRung(rungs: readonly Rung[], windowMs: number): Rung | undefined {
  const fitting = rungs.filter((rung) => rung.second !== undefined && rung.gapMs <= MAX_GAP_SHARE * windowMs);
  return fitting[fitting.length - 1];
}
