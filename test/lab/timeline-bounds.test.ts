import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MetricsRecorder } from '../../src/metrics/recorder.js';
import { MAX_TIMELINE_BUCKETS, TimelineCounter } from '../../src/metrics/timeline.js';

const DAY = 86_400_000;

/** Counts at one fixed width from the origin: the exact answer a merged timeline must equal. */
function countAt(events: readonly { t: number; units: number; allowed: boolean }[], bucketMs: number, buckets: number) {
  const offered = new Array<number>(buckets).fill(0);
  const admitted = new Array<number>(buckets).fill(0);
  for (const { t, units, allowed } of events) {
    const i = Math.floor(t / bucketMs);
    offered[i] = (offered[i] as number) + units;
    if (allowed) admitted[i] = (admitted[i] as number) + units;
  }
  return { offered, admitted };
}

describe('timelines are bounded by a number of buckets, not by the span they cover (issue 11, item 2)', () => {
  // Before: one Float64Array slot per bucket from the origin: 12 million buckets for 139
  // days at 1 s (2.9 GB for five algorithms), 94 million for three years (V8 aborted).
  it.each([
    ['139 days', 139 * DAY],
    ['3 years', 3 * 365 * DAY],
    ['the largest supported time', 8_640_000_000_000_000],
  ])('three arrivals spanning %s at 1 s buckets fit in at most MAX_TIMELINE_BUCKETS buckets', (_, spanMs) => {
    const recorder = new MetricsRecorder({ limit: 10, windowMs: 1000, bucketMs: 1000 }, 5);
    for (const t of [0, Math.floor(spanMs / 2), spanMs]) {
      recorder.offer(t, 'a', 1);
      for (let lane = 0; lane < 5; lane++) recorder.decide(lane, true);
      recorder.commit();
    }
    const { timeline, offered, worstWindowRatio } = recorder.result(4);
    expect(timeline.offered.length).toBeLessThanOrEqual(MAX_TIMELINE_BUCKETS);
    expect(timeline.offered.length).toBeGreaterThan(MAX_TIMELINE_BUCKETS / 5);
    expect(timeline.bucketMs % 1000).toBe(0);
    expect(timeline.originMs + timeline.offered.length * timeline.bucketMs).toBeGreaterThan(spanMs);
    expect(timeline.offered.reduce((a, b) => a + b, 0)).toBe(3);
    expect(timeline.admitted.reduce((a, b) => a + b, 0)).toBe(3);
    // What decides accuracy is not coarsened: the worst window is exact.
    expect(offered).toBe(3);
    expect(worstWindowRatio).toBe(0.1);
  });

  it('a scenario of 1 d at 1 ms buckets is padded to its duration in wider buckets, 10 s each', () => {
    const recorder = new MetricsRecorder({ limit: 10, windowMs: 1000, bucketMs: 1, originMs: 0, minBuckets: DAY });
    recorder.record(5, 'a', 1, true);
    const { timeline } = recorder.result();
    expect(timeline.bucketMs).toBe(10_000);
    expect(timeline.offered.length).toBe(DAY / 10_000);
    expect(timeline.offered[0]).toBe(1);
  });

  it('keeps the width asked for while it fits', () => {
    const counter = new TimelineCounter(0, 250);
    counter.add(0, 1, true);
    counter.add(MAX_TIMELINE_BUCKETS * 250 - 1, 2, false);
    const timeline = counter.result();
    expect(timeline.bucketMs).toBe(250);
    expect(timeline.offered.length).toBe(MAX_TIMELINE_BUCKETS);
  });

  it('merged buckets hold exactly what counting at the final width gives (widths x1, x2, x10, x20, ...)', () => {
    const events = fc.array(
      fc.record({ gap: fc.nat({ max: 5_000 }), units: fc.integer({ min: 1, max: 9 }), allowed: fc.boolean() }),
      { maxLength: 200 },
    );
    fc.assert(
      fc.property(
        events,
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 4, max: 40 }),
        (gaps, bucketMs, maxBuckets) => {
          let t = 0;
          const timed = gaps.map(({ gap, units, allowed }) => ({ t: (t += gap), units, allowed }));
          const counter = new TimelineCounter(0, bucketMs, maxBuckets);
          for (const { t: at, units, allowed } of timed) counter.add(at, units, allowed);
          const timeline = counter.result(t + 1);
          const factor = timeline.bucketMs / bucketMs;
          expect([1, 2, 10, 20, 100, 200, 1000, 2000, 10_000, 20_000]).toContain(factor);
          expect(timeline.offered.length).toBeLessThanOrEqual(maxBuckets);
          expect(timeline.offered.length).toBe(Math.floor(t / timeline.bucketMs) + 1);
          expect({ offered: timeline.offered, admitted: timeline.admitted }).toEqual(
            countAt(timed, timeline.bucketMs, timeline.offered.length),
          );
        },
      ),
    );
  });
});
