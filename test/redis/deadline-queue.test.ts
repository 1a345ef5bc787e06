import { describe, expect, it } from 'vitest';
import { timersLeftBy } from '../support/live-timers.js';
import { DeadlineQueue, RedisTimeoutError } from '../../src/redis/timeout.js';

const never = () => new Promise<never>(() => {});
const later = <T>(value: T, ms: number) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('DeadlineQueue: one timer bounding many calls', () => {
  it('passes through answers and errors that come in time', async () => {
    const queue = new DeadlineQueue(1000);
    await expect(queue.run(Promise.resolve(7))).resolves.toBe(7);
    await expect(queue.run(Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  });

  it('rejects every call that does not answer, in order, whatever answered around it', async () => {
    const queue = new DeadlineQueue(20);
    const results = await Promise.allSettled([
      queue.run(never()),
      queue.run(Promise.resolve('fast')),
      queue.run(never()),
      queue.run(later('slow', 2000)),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).name))).toEqual([
      'RedisTimeoutError',
      'fast',
      'RedisTimeoutError',
      'RedisTimeoutError',
    ]);
    expect((results[0] as PromiseRejectedResult).reason).toBeInstanceOf(RedisTimeoutError);
  });

  it('keeps working after going idle, and across many calls', async () => {
    const queue = new DeadlineQueue(20);
    await expect(queue.run(never())).rejects.toBeInstanceOf(RedisTimeoutError);
    const values = await Promise.all(Array.from({ length: 5000 }, (_, i) => queue.run(Promise.resolve(i))));
    expect(values[4999]).toBe(4999);
    await expect(queue.run(never())).rejects.toBeInstanceOf(RedisTimeoutError);
  });

  it('holds no timer that keeps the process alive once every call settled', async () => {
    const queue = new DeadlineQueue(60_000);
    const left = await timersLeftBy(() => Promise.all([queue.run(Promise.resolve(1)), queue.run(later(2, 5))]));
    expect(left).toBe(0);
  });

  // Held until the next deadline pass (every timeoutMs), settled calls kept their promises
  // and replies alive through young-generation GCs, which then paused longer
  // (bench/redis-gc.ts).
  it('lets go of a call as soon as it settles, not at the next deadline', async () => {
    const queue = new DeadlineQueue(60_000);
    await Promise.all(Array.from({ length: 1000 }, (_, i) => queue.run(later(i, i % 3))));
    expect(queue.held).toBe(0);
  });
});
