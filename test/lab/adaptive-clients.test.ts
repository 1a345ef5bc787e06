// Adaptive retry clients (a retry source with `client: adaptive`): the source alone on a
// server that answers from a script, then the built-in `adaptive-clients` scenario through
// the replay, read per client kind (what the server saw, how long clients waited).
import { describe, expect, it } from 'vitest';
import type { LabelMetrics } from '../../src/metrics/label-counts.js';
import type { KeySpec, RetrySourceSpec } from '../../src/scenario/scenario.js';
import { Random } from '../../src/traffic/random.js';
import { createSource } from '../../src/traffic/stream.js';
import { builtinLabelMetrics } from '../support/builtin-labels.js';

describe('an adaptive retry source', () => {
  const spec: RetrySourceSpec & { keys: KeySpec } = {
    kind: 'retry',
    keys: { count: 1, prefix: 'k', pick: 'round-robin', exponent: 1 },
    cost: 1,
    startMs: 0,
    endMs: 20_000,
    clients: 100,
    rampMs: 0,
    thinkMs: 60_000,
    jitter: 0,
    maxRetries: 5,
    client: 'adaptive',
  };

  it('the herd: 100 clients, the first denied with Retry-After 2 s: nothing until the pause ends, then spread', () => {
    const source = createSource(spec, new Random(7));
    const sent: number[] = [];
    let first = true;
    while (source.peek() < Infinity) {
      const arrival = source.take();
      sent.push(arrival.t);
      // The server: the first request denied for 2 s, every other admitted.
      source.react?.(arrival, !first, first ? 2000 : 0);
      first = false;
    }
    const [probe, ...rest] = sent;
    expect(probe).toBe(0);
    expect(rest.length).toBe(100);
    // The probe's answer came before any other was sent: nothing until the pause ended.
    expect(rest.filter((t) => t < 2000)).toEqual([]);
    const after = rest.filter((t) => t >= 2000);
    expect(after.length).toBeGreaterThan(0);
    expect(Math.min(...after)).toBeLessThanOrEqual(2000 * 1.2);
    // Restarted paced by AIMD (the measured rate halved), never all at one instant.
    expect(Math.max(...after.map((t) => after.filter((u) => u === t).length))).toBe(1);
  });
});

describe('the built-in adaptive-clients scenario', () => {
  const run = (algorithm: 'sliding-log' | 'token-bucket') => builtinLabelMetrics('adaptive-clients', algorithm);

  it.each(['sliding-log', 'token-bucket'] as const)(
    '%s: the adaptive clients send the fewest requests per admitted one, and wait less at worst than the retrying ones',
    async (algorithm) => {
      const labels = await run(algorithm);
      const adaptive = labels.get('adaptive') as LabelMetrics;
      expect(adaptive.offered).toBeLessThanOrEqual(1.1 * adaptive.admitted);
      for (const kind of ['naive', 'jitter', 'backoff']) {
        const other = labels.get(kind) as LabelMetrics;
        expect(other.offered / other.admitted, kind).toBeGreaterThan(2 * (adaptive.offered / adaptive.admitted));
        if (kind !== 'backoff') expect(other.wait?.p99, kind).toBeGreaterThan(adaptive.wait?.p99 ?? Infinity);
      }
      // Below the limit it does not know (AIMD backs off), but not far: at least 3/4 of the others' work.
      expect(adaptive.admitted).toBeGreaterThanOrEqual(0.75 * (labels.get('naive') as LabelMetrics).admitted);
    },
  );
});
