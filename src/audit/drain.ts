import type { Identity } from './identities.js';
import type { ProbeClient, ProbeShot } from './probe-client.js';
import { isAdmittedShot } from './shot-outcome.js';

/** One sequential run of requests from one identity until the first that is not admitted. */
export interface Drain {
  shots: ProbeShot[];
  /** Requests admitted before the run stopped. */
  admitted: number;
  /** The request that ended the run: a denial (or an error); undefined when `cap` was reached. */
  stoppedAt: ProbeShot | undefined;
  /** When the first request left, ms after the audit's start. */
  startMs: number;
}

/** Options of {@link drain}. */
export interface DrainOptions {
  /** Most requests admitted before the run stops anyway. */
  cap: number;
  path?: string;
  /** Ends the run after this shot when it answers true (a queueing limiter found, ...). */
  stopAfter?: (shot: ProbeShot, run: readonly ProbeShot[]) => boolean;
}

/**
 * Sends requests one after another (each when the previous has answered) from `identity`
 * until one is not admitted or `cap` are: what is left of the identity's quota right now,
 * plus whatever returns while the run lasts. Sequential on purpose, so that a limiter that
 * races under concurrency shows its intended limit here.
 */
export async function drain(
  client: ProbeClient,
  probe: string,
  identity: Identity,
  options: DrainOptions,
): Promise<Drain> {
  const shots: ProbeShot[] = [];
  let admitted = 0;
  const startMs = client.now();
  while (admitted < options.cap) {
    const shot = await client.send(probe, identity, options.path);
    shots.push(shot);
    if (!isAdmittedShot(shot)) return { shots, admitted, stoppedAt: shot, startMs };
    admitted++;
    if (options.stopAfter?.(shot, shots)) break;
  }
  return { shots, admitted, stoppedAt: undefined, startMs };
}
