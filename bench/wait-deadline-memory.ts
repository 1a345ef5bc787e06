// What wait() holds while a key is busy and each caller gives its own maxWaitMs: the waiters
// still waiting, the entries of the key's deadline heap, and the heap bytes they cost. On a
// ManualClock (counts, not times: the same figures on any machine): a queue of about 1,200
// on one key served at 1,000 a second, each caller patient for 100-1,000 s.
//
//   node --expose-gc --import tsx bench/wait-deadline-memory.ts [--seconds 300]
import { ManualClock, createLimiter, type Decision } from '../src/index.js';
import { KeyWaiters } from '../src/wait/key-waiters.js';
import { numberArg } from './redis-support.js';

const SECONDS = numberArg('--seconds', 300);
const QUEUE = 1200;

const gc = (globalThis as { gc?: () => void }).gc;
const heapUsed = () => {
  gc?.();
  return process.memoryUsage().heapUsed;
};

const clock = new ManualClock(0);
const limiter = createLimiter('token-bucket', { limit: 1000, windowMs: 1000, burst: 1 }, { clock });
const waiters = new KeyWaiters<Decision>((key, cost) => limiter.consume(key, cost), { scheduler: clock, capacity: 1 });
let waiting = 0;
let seed = 1;
/** A fixed pseudo-random sequence, so every run holds the same waiters. */
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const arrive = () => {
  waiting++;
  const done = () => void waiting--;
  void waiters.wait('k', 1, { maxWaitMs: 100_000 + random() * 900_000 }).then(done, done);
};

const before = heapUsed();
for (let i = 0; i < QUEUE; i++) arrive();
for (let ms = 0; ms < SECONDS * 1000; ms++) {
  arrive();
  clock.advance(1);
  if (ms % 1000 === 0) await new Promise((resolve) => setImmediate(resolve));
}
await new Promise((resolve) => setImmediate(resolve));
const grown = heapUsed() - before;
console.log(
  `${SECONDS} s at 1,000 served a second: ${waiting} waiting, ${waiters.deadlineEntries} deadline entries (${(waiters.deadlineEntries / waiting).toFixed(2)} per waiter)`,
);
console.log(
  gc
    ? `heap grown by ${(grown / 2 ** 20).toFixed(1)} MiB (${Math.round(grown / waiting)} B per waiter)`
    : 'heap: run with node --expose-gc for it',
);
