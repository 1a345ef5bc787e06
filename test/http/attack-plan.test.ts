import { describe, expect, it } from 'vitest';
import { alignedStartEpoch, plannedEvents, type AttackEvent, type AttackStream } from '../../src/attack/schedule.js';

function streamOf(times: readonly number[], closedLoop = false): AttackStream {
  const events: AttackEvent[] = times.map((t) => ({ t, key: 'k' }));
  let next = 0;
  return { next: () => events[next++], closedLoop };
}

describe('--align: the replay keeps its phase against the alignment', () => {
  it.each([
    // now, origin (trace time of the first event), speed, align -> start (epoch ms)
    {
      now: 1_000_000_250,
      origin: 0,
      speed: 1,
      align: 1000,
      start: 1_000_001_000,
      why: 'a scenario (origin 0) starts on the next multiple',
    },
    {
      now: 1_000_001_000,
      origin: 0,
      speed: 1,
      align: 1000,
      start: 1_000_001_000,
      why: 'already on a multiple: no wait',
    },
    {
      now: 1_000_000_250,
      origin: 1880,
      speed: 1,
      align: 1000,
      start: 1_000_000_880,
      why: 'a trace starting at 1,880 ms starts 880 ms past a second',
    },
    {
      now: 1_000_000_900,
      origin: 1880,
      speed: 1,
      align: 1000,
      start: 1_000_001_880,
      why: "past this second's phase: the next one",
    },
    {
      now: 1_000_000_250,
      origin: 1880,
      speed: 2,
      align: 1000,
      start: 1_000_000_940,
      why: 'at 2x, trace time 1,880 is 940 ms of wall time',
    },
    {
      now: 1_000_000_300,
      origin: 12_500,
      speed: 10,
      align: 1000,
      start: 1_000_001_250,
      why: 'at 10x, 12.5 s is 1,250 ms: phase 250, just passed',
    },
    {
      now: 1_000_000_000,
      origin: 1_700_000_000_123,
      speed: 1,
      align: 60_000,
      start: 1_000_040_123,
      why: 'an epoch-stamped trace keeps its phase in the minute',
    },
  ])('$why', ({ now, origin, speed, align, start }) => {
    const epoch = alignedStartEpoch(now, origin, speed, align);
    expect(epoch).toBeCloseTo(start, 6);
    // The definition: event t leaves at start + (t - origin) / speed, congruent to t / speed mod align.
    for (const t of [origin, origin + 130, origin + 7_777]) {
      const sent = epoch + (t - origin) / speed;
      expect((((sent - t / speed) % align) + align) % align).toBeCloseTo(0, 6);
    }
  });
});

describe('plannedEvents: what the progress line counts towards', () => {
  it.each([
    {
      times: [1880, 1900, 2090],
      origin: undefined,
      duration: Infinity,
      cap: 100,
      planned: 3,
      why: 'a trace: all of it',
    },
    {
      times: [1880, 1900, 2090],
      origin: undefined,
      duration: 200,
      cap: 100,
      planned: 2,
      why: '--duration counts from the first event',
    },
    { times: [0, 500, 1000, 1500], origin: 0, duration: 1000, cap: 100, planned: 2, why: 'a scenario counts from 0' },
    { times: [0, 500, 1000, 1500], origin: 0, duration: Infinity, cap: 3, planned: 3, why: 'capped at --max-requests' },
    { times: [], origin: undefined, duration: Infinity, cap: 100, planned: 0, why: 'an empty trace' },
  ])('$why', ({ times, origin, duration, cap, planned }) => {
    expect(plannedEvents(streamOf(times), origin, duration, cap)).toBe(planned);
  });

  it('is unknown for a closed-loop stream (its events depend on the decisions)', () => {
    expect(plannedEvents(streamOf([0, 1], true), 0, Infinity, 100)).toBeUndefined();
  });
});
