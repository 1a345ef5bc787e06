import { drain } from './drain.js';
import type { Identity } from './identities.js';
import type { ProbeClient, ProbeShot } from './probe-client.js';
import { isAdmittedShot } from './shot-outcome.js';

/** What many requests in flight at once from one fresh client got. */
export interface ConcurrencyReading {
  inFlight: number;
  admitted: number;
  /** Admitted one at a time before the burst, so that the burst meets the end of the quota. */
  spent: number;
  /** From the first request spent to the burst's last answer, ms (a bucket refills meanwhile). */
  spendingMs: number;
  /** The requests spent one at a time, then those of the burst. */
  shots: ProbeShot[];
  /** The burst's requests alone. */
  burst: ProbeShot[];
}

/**
 * Sends `inFlight` requests at once from a fresh client, after spending (one at a time)
 * all but half as many of the quota the discovery found: the burst then meets the end of
 * the quota, where a limiter whose store reads and then writes without a lock (or a
 * script) admits more than is left, since every request in flight reads the same count.
 */
export async function probeConcurrency(
  client: ProbeClient,
  identity: Identity,
  inFlight: number,
  quota: number,
): Promise<ConcurrencyReading> {
  const toSpend = Math.max(0, quota - Math.floor(inFlight / 2));
  const startMs = client.now();
  const spent = toSpend === 0 ? undefined : await drain(client, 'concurrency', identity, { cap: toSpend });
  const shots = await client.burst('concurrency', identity, inFlight);
  return {
    inFlight,
    admitted: shots.filter(isAdmittedShot).length,
    spent: spent?.admitted ?? 0,
    spendingMs: client.now() - startMs,
    shots: [...(spent?.shots ?? []), ...shots],
    burst: shots,
  };
}
