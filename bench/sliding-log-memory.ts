// The sliding log's memory follows the timestamps its keys hold, not keys x limit. Each case
// runs in its own child process (`--expose-gc`) and reports the bytes the limiter keeps
// (heap + external after forced GC, key strings excluded) and the process RSS (figures in
// docs/bench.md):
//
// - one-off: 9,000 keys seen once at limit 100000 / 60 s (no key may reserve its whole
//   limit of timestamps up front);
// - full, key by key: 1e6 keys at limit 10, each filled to its limit in turn;
// - full, in step: the same keys filled one unit per round over all keys (every ring grows
//   through 1, 2, 4, 8, 10 together, the worst case for freed blocks; repacking bounds it).
//
// The goal to hold at full keys: 8 B per unit of the limit + 64 B (144 B at limit 10).
//
//   npx tsx bench/sliding-log-memory.ts
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../src/core/clock.js';
import { createLimiter } from '../src/memory/limiter.js';

type Case = 'one-off' | 'full-key-by-key' | 'full-in-step';
const CASES: Record<Case, { keys: number; limit: number; windowMs: number }> = {
  'one-off': { keys: 9_000, limit: 100_000, windowMs: 60_000 },
  'full-key-by-key': { keys: 1_000_000, limit: 10, windowMs: 60_000 },
  'full-in-step': { keys: 1_000_000, limit: 10, windowMs: 60_000 },
};

function heapBytes(): number {
  const collect = (globalThis as { gc?: () => void }).gc as () => void;
  collect();
  collect();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

function child(name: Case): void {
  const { keys: count, limit, windowMs } = CASES[name];
  const limiter = createLimiter('sliding-log', { limit, windowMs }, { clock: new ManualClock(0) });
  const empty = heapBytes();
  const keys = Array.from({ length: count }, (_, i) => `key:${i}`);
  const withKeys = heapBytes();
  if (name === 'one-off') for (const key of keys) limiter.consume(key);
  if (name === 'full-key-by-key') for (const key of keys) for (let unit = 0; unit < limit; unit++) limiter.allow(key);
  if (name === 'full-in-step') for (let unit = 0; unit < limit; unit++) for (const key of keys) limiter.allow(key);
  const full = heapBytes();
  const result = {
    case: name,
    keys: count,
    limit,
    bytesPerKey: (full - withKeys) / count,
    limiterMiB: (full - withKeys) / 2 ** 20,
    rssMiB: process.memoryUsage().rss / 2 ** 20,
    keyBytes: withKeys - empty,
    live: limiter.size,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

const self = fileURLToPath(import.meta.url);
const only = process.argv[2] as Case | undefined;
if (only && only in CASES) {
  child(only);
} else {
  console.log('case               keys      limit  B/key (limiter)  limiter MiB  RSS MiB  goal B/key');
  for (const name of Object.keys(CASES) as Case[]) {
    const out = execFileSync(process.execPath, [...process.execArgv, '--expose-gc', self, name], {
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    });
    const r = JSON.parse(out.trim().split('\n').pop() as string) as {
      keys: number;
      limit: number;
      bytesPerKey: number;
      limiterMiB: number;
      rssMiB: number;
    };
    const goal = name === 'one-off' ? '' : String(8 * r.limit + 64);
    console.log(
      `${name.padEnd(17)}  ${String(r.keys).padStart(9)}  ${String(r.limit).padStart(6)}  ${r.bytesPerKey.toFixed(1).padStart(15)}  ${r.limiterMiB.toFixed(1).padStart(11)}  ${r.rssMiB.toFixed(0).padStart(7)}  ${goal.padStart(10)}`,
    );
  }
}
