// ManualClock as a timer scheduler: what limiter.wait relies on for virtual time.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/index.js';

describe('ManualClock timers', () => {
  it('fire in due order (scheduling order at equal times), each with the clock at its due time', () => {
    const clock = new ManualClock(1000);
    const fired: [string, number][] = [];
    const at = (name: string) => () => fired.push([name, clock.now()]);
    clock.schedule(at('c'), 30);
    clock.schedule(at('a'), 10);
    clock.schedule(at('b1'), 20);
    clock.schedule(at('b2'), 20);
    expect(clock.pendingTimers).toBe(4);
    clock.advance(25);
    expect(fired).toEqual([
      ['a', 1010],
      ['b1', 1020],
      ['b2', 1020],
    ]);
    expect(clock.now()).toBe(1025);
    expect(clock.pendingTimers).toBe(1);
  });

  it('a timer scheduled by a timer fires within the same advance when due by its end', () => {
    const clock = new ManualClock(0);
    const fired: number[] = [];
    const tick = () => {
      fired.push(clock.now());
      if (fired.length < 5) clock.schedule(tick, 100);
    };
    clock.schedule(tick, 100);
    clock.advance(350);
    expect(fired).toEqual([100, 200, 300]);
    clock.advance(1000);
    expect(fired).toEqual([100, 200, 300, 400, 500]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('cancelling removes a timer (twice is harmless; after it fired, nothing)', () => {
    const clock = new ManualClock(0);
    let fired = 0;
    const cancel = clock.schedule(() => fired++, 10);
    const fires = clock.schedule(() => fired++, 5);
    cancel();
    cancel();
    expect(clock.pendingTimers).toBe(1);
    clock.advance(20);
    fires();
    expect([fired, clock.pendingTimers]).toEqual([1, 0]);
  });

  it('set() forward fires what is due; set() backward fires nothing and timers keep their times', () => {
    const clock = new ManualClock(100);
    const fired: number[] = [];
    clock.schedule(() => fired.push(clock.now()), 50);
    clock.set(20);
    expect(fired).toEqual([]);
    clock.set(149);
    expect(fired).toEqual([]);
    clock.set(500);
    expect(fired).toEqual([150]);
    expect(clock.now()).toBe(500);
  });

  it('a zero delay fires on the next advance, even advance(0)', () => {
    const clock = new ManualClock(0);
    let fired = 0;
    clock.schedule(() => fired++, 0);
    expect(fired).toBe(0);
    clock.advance(0);
    expect(fired).toBe(1);
  });
});
