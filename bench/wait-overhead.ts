// What waiting costs the in-memory limiter, as ratios within one run (the machine's load
// moves the raw rates): per call, `await consume` against `await wait` when nothing has to
// wait (the fast path: one consume, one promise), and a line of queued waiters drained on a
// ManualClock (one timer per key, each waiter decided when its time comes).
//
//   npx tsx bench/wait-overhead.ts [--rounds 7] [--calls 200000]
import { median } from 'simple-statistics';
import { ManualClock, createLimiter } from '../src/index.js';
import { numberArg } from './redis-support.js';

const ROUNDS = numberArg('--rounds', 7);
const CALLS = numberArg('--calls', 200_000);
// Big enough that nothing is ever denied in the fast-path rounds.
const ROOMY = { limit: 2 ** 31, windowMs: 1000 };

async function awaitedConsume(): Promise<number> {
  const limiter = createLimiter('token-bucket', ROOMY);
  const start = performance.now();
  for (let i = 0; i < CALLS; i++) await Promise.resolve(limiter.consume(`k${i & 1023}`));
  return CALLS / ((performance.now() - start) / 1000);
}

async function fastWait(): Promise<number> {
  const limiter = createLimiter('token-bucket', ROOMY);
  const start = performance.now();
  for (let i = 0; i < CALLS; i++) await limiter.wait(`k${i & 1023}`);
  return CALLS / ((performance.now() - start) / 1000);
}

/** CALLS waiters over 1024 keys, each key 1 per ms, drained by advancing a ManualClock. */
async function queuedWaits(): Promise<number> {
  const clock = new ManualClock(0);
  const limiter = createLimiter('token-bucket', { limit: 1000, windowMs: 1000, burst: 1 }, { clock });
  const start = performance.now();
  const waits: Promise<unknown>[] = [];
  for (let i = 0; i < CALLS; i++) waits.push(limiter.wait(`k${i & 1023}`));
  clock.advance(Math.ceil(CALLS / 1024) + 1);
  await Promise.all(waits);
  return CALLS / ((performance.now() - start) / 1000);
}

const rates = { consume: [] as number[], wait: [] as number[], queued: [] as number[] };
for (let r = 0; r < ROUNDS; r++) {
  rates.consume.push(await awaitedConsume());
  rates.wait.push(await fastWait());
  rates.queued.push(await queuedWaits());
}
const m = (xs: number[]) => median(xs);
const k = (x: number) => `${(x / 1000).toFixed(0)}k/s`;
console.log(`await consume (no wait needed)      ${k(m(rates.consume))}`);
console.log(
  `await wait (no wait needed)         ${k(m(rates.wait))}  ${(m(rates.wait) / m(rates.consume)).toFixed(2)}x of await consume`,
);
console.log(
  `queued waits, drained on a clock    ${k(m(rates.queued))}  ${(m(rates.queued) / m(rates.consume)).toFixed(2)}x of await consume`,
);
