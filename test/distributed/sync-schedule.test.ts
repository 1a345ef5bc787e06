import { describe, expect, it } from 'vitest';
import { SyncSchedule } from '../../src/sim/distributed/sync-schedule.js';

describe('SyncSchedule.lastSync: the latest tick k * syncMs whose exchange has landed (tick + rtt <= t), outside the outage', () => {
  const plain = new SyncSchedule(100, 5, undefined);
  it.each([
    [0, -Infinity],
    [4, -Infinity],
    [5, 0],
    [104, 0],
    [105, 100],
    [999, 900],
  ])('every 100 ms, rtt 5 ms, at %i ms: %s', (t, s) => {
    expect(plain.lastSync(t)).toBe(s);
  });

  const outage = new SyncSchedule(100, 5, { startMs: 250, endMs: 520 });
  it.each([
    [255, 200],
    [305, 200],
    [520, 200],
    [604, 200],
    [605, 600],
  ])('with the store down 250-520 ms, at %i ms: %s (exchanges started in the outage are lost)', (t, s) => {
    expect(outage.lastSync(t)).toBe(s);
  });

  it('an outage from the start leaves nothing synced until it ends', () => {
    const early = new SyncSchedule(100, 0, { startMs: 0, endMs: 150 });
    expect(early.lastSync(120)).toBe(-Infinity);
    expect(early.lastSync(200)).toBe(200);
  });
});
