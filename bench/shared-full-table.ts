// What a new key costs when the table is full, as a ratio within one run (the machine's
// load moves the raw times): the shared limiter refusing it (SHARED_TABLE_FULL: every key
// in use) against the memory limiter at the same maxKeys making room for it (it drops its
// least recently used key). The ratio should not grow with maxKeys: a refusal is O(1).
//
//   npx tsx bench/shared-full-table.ts [--rounds 5] [--ms 200]
import { median } from 'simple-statistics';
import { ManualClock, RatelabError, createLimiter } from '../src/index.js';
import { createSharedLimiter } from '../src/shared/index.js';
import { numberArg } from './redis-support.js';

const ROUNDS = numberArg('--rounds', 5);
/** Each measurement runs new-key calls for about this long. */
const MS = numberArg('--ms', 200);
const SIZES = [10_000, 100_000, 1_000_000];
// Keys stay in use: nothing is idle within the hour, so the shared table can only refuse.
const POLICY = { limit: 10, windowMs: 3_600_000 };

/** Microseconds per call of `call(i)`, over calls numbered from `first`, for about MS. */
function perCall(first: number, call: (i: number) => void): number {
  const start = performance.now();
  let calls = 0;
  while (performance.now() - start < MS) {
    for (let j = 0; j < 16; j++) call(first + calls++);
  }
  return ((performance.now() - start) * 1000) / calls;
}

function refuse(call: () => unknown): void {
  try {
    call();
  } catch (error) {
    if (!(error instanceof RatelabError) || error.code !== 'SHARED_TABLE_FULL') throw error;
    return;
  }
  throw new Error('a new key was admitted into a full table of keys in use');
}

function measure(maxKeys: number): { shared: number; memory: number } {
  const clock = new ManualClock(0);
  const shared = createSharedLimiter('token-bucket', POLICY, { clock, maxKeys });
  const memory = createLimiter('token-bucket', POLICY, { clock, maxKeys });
  // Until every row is in use (a rare key whose 32 probe slots are taken is skipped).
  let next = 0;
  for (; shared.size < maxKeys; next++) {
    memory.allow(`key-${next}`);
    try {
      shared.allow(`key-${next}`);
    } catch (error) {
      if (!(error instanceof RatelabError) || error.code !== 'SHARED_TABLE_FULL') throw error;
    }
  }
  const sharedUs: number[] = [];
  const memoryUs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    sharedUs.push(perCall(next, (i) => refuse(() => shared.allow(`key-${i}`))));
    // New keys each round for the memory limiter too, so it always evicts.
    memoryUs.push(perCall(next, (i) => memory.allow(`new-${round}-${i}`)));
    next += 1_000_000;
  }
  return { shared: median(sharedUs), memory: median(memoryUs) };
}

console.log(`a new key into a full table (token bucket, every key in use), median of ${ROUNDS} rounds of ~${MS} ms`);
console.log('maxKeys     shared refusal   memory (evicts)   shared / memory');
for (const maxKeys of SIZES) {
  const { shared, memory } = measure(maxKeys);
  console.log(
    `${String(maxKeys).padEnd(10)}  ${`${shared.toFixed(2)} us`.padStart(14)}   ${`${memory.toFixed(2)} us`.padStart(15)}   ${`${(shared / memory).toFixed(1)}x`.padStart(15)}`,
  );
}
