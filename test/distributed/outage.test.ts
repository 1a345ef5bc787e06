import { describe, expect, it } from 'vitest';
import { isDown, parseOutage, parseTime } from '../../src/sim/distributed/outage.js';

describe('parseOutage', () => {
  it.each([
    ['10s-20s', { startMs: 10_000, endMs: 20_000 }],
    ['0-500ms', { startMs: 0, endMs: 500 }],
    ['0s-1m', { startMs: 0, endMs: 60_000 }],
    ['1500ms-2s', { startMs: 1500, endMs: 2000 }],
  ])('%s', (text, expected) => {
    expect(parseOutage(text, '--outage')).toEqual(expected);
  });

  it.each([
    ['20s-10s', /--outage: the end must be after the start/],
    ['10s-10s', /--outage: the end must be after the start/],
    ['10s', /--outage: expected START-END/],
    ['1s-2s-3s', /--outage: expected START-END/],
    ['x-2s', /--outage: expected a duration/],
    ['-5s-2s', /--outage: expected START-END/],
  ])('refuses %s', (text, message) => {
    expect(() => parseOutage(text, '--outage')).toThrow(message);
  });
});

describe('isDown', () => {
  const outage = { startMs: 100, endMs: 200 };
  it.each([
    [99, false],
    [100, true],
    [199, true],
    [200, false],
  ])('at %i ms: %s', (t, down) => {
    expect(isDown(outage, t)).toBe(down);
    expect(isDown(undefined, t)).toBe(false);
  });
});

describe('parseTime', () => {
  it.each([
    ['0', 0],
    ['0ms', 0],
    ['0s', 0],
    ['1ms', 1],
    ['2s', 2000],
  ])('%s is %i ms', (text, ms) => {
    expect(parseTime(text, '--rtt')).toBe(ms);
  });
  it('refuses a negative time', () => {
    expect(() => parseTime('-1ms', '--rtt')).toThrow(/--rtt/);
  });
});
