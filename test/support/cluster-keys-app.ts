// A real node:cluster application for test/shared/cluster-keys.test.ts, started by
// test/support/ts-worker.mjs with RATELAB_TS_WORKER pointing here. The primary serves one
// limiter (limit 1 per hour) and forks one worker, which asks it twice for each key below
// through createClusterLimiter. The primary prints one JSON line, what each call answered
// per key, and exits.
import cluster from 'node:cluster';
import { serveClusterLimiter } from '../../src/shared/cluster-primary.js';
import { createClusterLimiter } from '../../src/shared/cluster-worker.js';

// Keys that differ only in lone surrogates, U+FFFD and surrogate pairs.
const KEYS = ['user\uD800', 'user\uDBFF', 'user\uDC00', 'user\uFFFD', 'user\u{1F600}', 'user\uDE00\uD83D', 'user'];

async function primary(): Promise<void> {
  serveClusterLimiter('keys', 'gcra', { limit: 1, windowMs: 3_600_000 });
  const result = await new Promise<unknown>((done) => {
    cluster.fork().on('message', (message: { result?: unknown }) => {
      if (message.result !== undefined) done(message.result);
    });
  });
  for (const worker of Object.values(cluster.workers ?? {})) worker?.kill();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

async function worker(): Promise<void> {
  const limiter = createClusterLimiter(
    'keys',
    'gcra',
    { limit: 1, windowMs: 3_600_000 },
    { timeoutMs: 30_000, failMode: 'closed' },
  );
  const result: Record<string, string> = {};
  for (const key of KEYS) {
    const calls = [await limiter.consume(key), await limiter.consume(key)];
    result[JSON.stringify(key)] = calls.map((d) => `${d.reason}:${d.allowed ? 'admitted' : 'denied'}`).join(',');
  }
  process.send?.({ result });
}

await (cluster.isPrimary ? primary() : worker());
