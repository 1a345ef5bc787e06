import { RatelabError } from '../core/errors.js';
import { drain, type Drain } from './drain.js';
import type { Identity } from './identities.js';
import type { ProbeClient, ProbeShot } from './probe-client.js';
import { isAdmittedShot } from './shot-outcome.js';

/** What the first fresh client's sequential run found. */
export interface Discovery {
  identity: Identity;
  run: Drain;
  /** The first denial, when the run reached one. */
  denial: ProbeShot | undefined;
  /** Admitted requests were held back (a queueing limiter): the run stopped to probe it apart. */
  queueing: boolean;
  /** The usual latency of an admitted request that was not held, ms. */
  baseLatencyMs: number;
}

/** Admitted requests this many in a row, each held far longer than the first were: a queue. */
const HELD_IN_A_ROW = 3;

/**
 * Whether `latencyMs` is held rather than served: 20 ms and five times over the usual. A
 * queueing limiter holds each request one interval of its rate (100 ms at 10 r/s).
 */
export function isHeld(latencyMs: number, baseLatencyMs: number): boolean {
  return latencyMs > baseLatencyMs + Math.max(20, 5 * baseLatencyMs);
}

/**
 * Sends from a fresh client one request after another until the first denial (or `cap`
 * admitted): the quota a client starts with. Throws `ENDPOINT_UNAVAILABLE` when the first
 * request gets no response, `INVALID_ARGUMENT` when it is redirected (audit does not follow
 * redirects: a redirect loop would be followed forever).
 */
export async function discover(client: ProbeClient, identity: Identity, cap: number): Promise<Discovery> {
  const first = await client.send('discovery', identity);
  checkFirst(first);
  let base = first.latencyMs;
  const run = isAdmittedShot(first)
    ? await drain(client, 'discovery', identity, {
        cap: cap - 1,
        stopAfter: (shot, shots) => {
          if (shots.length <= HELD_IN_A_ROW) base = Math.min(base, shot.latencyMs);
          return shots.length > HELD_IN_A_ROW && shots.slice(-HELD_IN_A_ROW).every((s) => isHeld(s.latencyMs, base));
        },
      })
    : { shots: [], admitted: 0, stoppedAt: first, startMs: first.sentMs };
  const merged: Drain = {
    shots: isAdmittedShot(first) ? [first, ...run.shots] : [first],
    admitted: run.admitted + (isAdmittedShot(first) ? 1 : 0),
    stoppedAt: run.stoppedAt,
    startMs: first.sentMs,
  };
  const tail = merged.shots.slice(-HELD_IN_A_ROW);
  const queueing = tail.length === HELD_IN_A_ROW && tail.every((s) => isAdmittedShot(s) && isHeld(s.latencyMs, base));
  return { identity, run: merged, denial: merged.stoppedAt, queueing, baseLatencyMs: base };
}

function checkFirst(shot: ProbeShot): void {
  const url = shot.path;
  if (shot.status === undefined) {
    throw new RatelabError('ENDPOINT_UNAVAILABLE', `URL: no response from ${url} (${shot.error ?? 'no answer'})`, {
      field: 'URL',
    });
  }
  if (shot.status >= 300 && shot.status < 400) {
    const where = shot.headers.location === undefined ? '' : ` to ${shot.headers.location}`;
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `URL: answers ${shot.status} (a redirect${where}); audit does not follow redirects: audit the URL it names`,
      { field: 'URL' },
    );
  }
  if (shot.status >= 400 && shot.status !== 429 && shot.status !== 503) {
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `URL: the first request was answered ${shot.status}, not a 2xx or a rate-limit denial: audit an endpoint that serves requests`,
      { field: 'URL' },
    );
  }
}
