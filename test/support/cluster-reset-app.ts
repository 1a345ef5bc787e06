// A real node:cluster application for test/shared/cluster-interface.test.ts, started by
// test/support/ts-worker.mjs with RATELAB_TS_WORKER pointing here. The primary serves one
// token bucket of 2 per hour as `api` (or, with RATELAB_CLUSTER_MODE=deaf, nothing) and forks
// one worker, which makes its limiter with `createClusterLimiter(algorithm, policy, { name })`
// and goes through consume, allow, reset and wait (deaf: up to the first reset). The primary prints one JSON line: what
// each step answered, in order.
import cluster from 'node:cluster';
import type { RatelabError } from '../../src/core/errors.js';
import { serveClusterLimiter } from '../../src/shared/cluster-primary.js';
import { createClusterLimiter } from '../../src/shared/cluster-worker.js';

const POLICY = { limit: 2, windowMs: 3_600_000 };

async function primary(): Promise<void> {
  if (process.env.RATELAB_CLUSTER_MODE !== 'deaf') serveClusterLimiter('api', 'token-bucket', POLICY);
  const result = await new Promise<unknown>((done) => {
    cluster.fork().on('message', (message: { result?: unknown }) => {
      if (message.result !== undefined) done(message.result);
    });
  });
  for (const worker of Object.values(cluster.workers ?? {})) worker?.kill();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** A step's outcome: its value, or the error's code (or message, for a plain Error). */
function outcome(step: Promise<unknown>): Promise<unknown> {
  return step.then(
    (value) => value,
    (error: RatelabError) => `rejected: ${error.code ?? error.message}`,
  );
}

async function worker(): Promise<void> {
  const deaf = process.env.RATELAB_CLUSTER_MODE === 'deaf';
  const limiter = createClusterLimiter('token-bucket', POLICY, {
    name: 'api',
    timeoutMs: deaf ? 200 : 30_000,
    failMode: 'closed',
  });
  const steps: Array<[string, () => Promise<unknown>]> = [
    ['consume', async () => (await limiter.consume('k')).reason],
    ['allow', () => limiter.allow('k')],
    ['allow', () => limiter.allow('k')],
    ['reset', () => limiter.reset('k')],
    ['allow', () => limiter.allow('k')],
    ['reset', () => limiter.reset('never-seen')],
    ['reset', () => limiter.reset(3 as never)],
    ['wait', async () => (await limiter.wait('k')).remaining],
  ];
  const result: Array<[string, unknown]> = [];
  // Without a primary, a wait would retry for ever under `closed`: the deaf run stops before it.
  for (const [name, step] of deaf ? steps.slice(0, 4) : steps) result.push([name, await outcome(step())]);
  result.push(['name', limiter.name]);
  process.send?.({ result });
}

await (cluster.isPrimary ? primary() : worker());
