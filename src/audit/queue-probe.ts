import type { Identity } from './identities.js';
import type { ProbeClient, ProbeShot } from './probe-client.js';
import { isAdmittedShot, isDeniedShot } from './shot-outcome.js';
import { isHeld } from './discovery-probe.js';

/** What a burst at a queueing limiter showed. */
export interface QueueReading {
  shots: ProbeShot[];
  /** Admitted at once. */
  served: number;
  /** Admitted after being held. */
  held: number;
  denied: number;
  /** Requests per second the held ones were let through at; undefined with fewer than two held. */
  ratePerSec: number | undefined;
  /** The rate's range, from the answers' timing jitter (one base latency either end). */
  rateRange: [number, number] | undefined;
  /** The longest any request was held, ms. */
  maxDelayMs: number;
}

/** A queue burst under way: the first denial (the queue is full then) and the whole reading. */
export interface QueueBurst {
  /** Resolves once the first denial has come back (or the burst has ended without one). */
  full: Promise<void>;
  done: Promise<QueueReading>;
}

/**
 * Sends `count` requests at once from a fresh client and reads a queue from the answers:
 * a leaky bucket that delays serves one at once and lets the rest out one interval apart,
 * denying those beyond its queue. The rate is the held requests over the span their
 * answers came in.
 */
export function probeQueue(client: ProbeClient, identity: Identity, count: number, baseLatencyMs: number): QueueBurst {
  let markFull: () => void = () => undefined;
  const full = new Promise<void>((resolve) => (markFull = resolve));
  const sends = Array.from({ length: count }, () =>
    client.send('queue', identity).then((shot) => {
      if (isDeniedShot(shot)) markFull();
      return shot;
    }),
  );
  const done = Promise.all(sends)
    .then((shots) => readQueue(shots, baseLatencyMs))
    .finally(markFull);
  return { full, done };
}

function readQueue(shots: ProbeShot[], baseLatencyMs: number): QueueReading {
  const admitted = shots.filter(isAdmittedShot);
  const held = admitted.filter((shot) => isHeld(shot.latencyMs, baseLatencyMs));
  const latencies = admitted.map((shot) => shot.latencyMs).sort((a, b) => a - b);
  const first = latencies[0] ?? 0;
  const span = (latencies[latencies.length - 1] ?? 0) - first;
  const jitter = 2 * Math.max(1, baseLatencyMs);
  const measurable = held.length >= 2 && span > jitter;
  const rate = (ms: number) => (1000 * (admitted.length - 1)) / ms;
  return {
    shots,
    served: admitted.length - held.length,
    held: held.length,
    denied: shots.filter(isDeniedShot).length,
    ratePerSec: measurable ? rate(span) : undefined,
    rateRange: measurable ? [rate(span + jitter), rate(span - jitter)] : undefined,
    maxDelayMs: span,
  };
}
