import { drain } from './drain.js';
import type { Identity } from './identities.js';
import type { ProbeClient, ProbeShot } from './probe-client.js';

/** Quota that came back to an exhausted client: what one poll drained, and when. */
export interface Return {
  /** When the poll's first request left, ms after the audit's start. */
  atMs: number;
  /** When the poll before it left (the return happened in between). */
  afterMs: number;
  /** Requests admitted by the poll. */
  count: number;
}

/** What polling an exhausted client saw. */
export interface Staircase {
  identity: Identity;
  /** When the client was found exhausted (its first denial left), ms after the start. */
  exhaustedMs: number;
  returns: Return[];
  shots: ProbeShot[];
  /** Whether polling ended because `done` said so (else a bound or the time given ran out). */
  complete: boolean;
}

/** Options of {@link pollStaircase}. */
export interface StaircaseOptions {
  /** The probe's name on its shots. */
  probe: string;
  identity: Identity;
  /** When the identity was exhausted, ms after the start. */
  exhaustedMs: number;
  /** Most requests one poll sends before it stops (a full quota and some). */
  cap: number;
  /** Polling stops at this time, ms after the start, complete or not. */
  untilMs: number;
  /** Polling stops once it has sent this many requests, complete or not. */
  maxShots: number;
  /** The shortest wait between polls, ms. */
  minGapMs: number;
  /** Says when polling has seen enough. */
  done: (returns: readonly Return[]) => boolean;
  /**
   * The share of the time since the last return each poll waits (default
   * {@link GAP_SHARE}); 1 doubles the wait each time, so a client that is never left alone
   * long is knocked on only a few times.
   */
  gapShare?: number;
  path?: string;
}

/**
 * The share of the time since the last return that the next poll waits: the polls thin
 * out geometrically while nothing comes back, so a long window costs a few hundred polls,
 * yet a return is timed to within this share of the wait before it.
 */
const GAP_SHARE = 0.015;

/**
 * Polls an exhausted client: each poll drains what has come back since the last (sends
 * until denied), so the returns form a staircase of quota over time. A bucket returns a
 * little at every poll from the start; a fixed window or a compact sliding log nothing,
 * then a whole quota at once; a sliding counter nothing, then a little at every poll.
 */
export async function pollStaircase(client: ProbeClient, options: StaircaseOptions): Promise<Staircase> {
  const returns: Return[] = [];
  const shots: ProbeShot[] = [];
  let anchor = options.exhaustedMs;
  let lastPollMs = options.exhaustedMs;
  let returned = 0;
  let complete = false;
  while (!complete) {
    // Once a steady flow is seen, polls a little more often than one unit comes back.
    const flowGap = returned >= 3 ? (0.5 * (anchor - options.exhaustedMs)) / returned : 0;
    const gap = Math.max(options.minGapMs, (options.gapShare ?? GAP_SHARE) * (client.now() - anchor), flowGap);
    const next = client.now() + gap;
    if (next > options.untilMs || shots.length >= options.maxShots) break;
    await client.sleepUntil(next);
    const poll = await drain(client, options.probe, options.identity, { cap: options.cap, path: options.path });
    shots.push(...poll.shots);
    if (poll.admitted > 0) {
      returns.push({ atMs: poll.startMs, afterMs: lastPollMs, count: poll.admitted });
      returned += poll.admitted;
      anchor = poll.startMs;
    }
    lastPollMs = poll.startMs;
    complete = options.done(returns);
  }
  return { identity: options.identity, exhaustedMs: options.exhaustedMs, returns, shots, complete };
}
