import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';

/** Keys deleted per UNLINK (and asked per SCAN step): a bounded command, whatever the count. */
const STEP = 1000;

/**
 * Deletes every key under `prefix` (SCAN and UNLINK, {@link STEP} at a time), for the lab's
 * runs that write keys of their own (`ratelab race`, `bench --redis`). Redis may be hanging,
 * out of memory or restarting when a run fails, so it starts over every 100 ms for up to
 * `withinMs`; returns whether the keys are gone.
 */
export async function deleteKeysUnder(
  redis: Pick<Redis, 'scan' | 'unlink'>,
  prefix: string,
  withinMs = 3000,
): Promise<boolean> {
  const deadline = performance.now() + withinMs;
  for (;;) {
    try {
      await deleteOnce(redis, prefix);
      return true;
    } catch {
      if (performance.now() >= deadline) return false;
      await sleep(100);
    }
  }
}

async function deleteOnce(redis: Pick<Redis, 'scan' | 'unlink'>, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', STEP);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
}
