// A cluster worker's limiter is an AsyncRateLimiter like the others: `reset` reaches the
// primary, and the factory takes `(algorithm, policy, { name })` like every other.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const boot = fileURLToPath(new URL('../support/ts-worker.mjs', import.meta.url));
const app = new URL('../support/cluster-reset-app.ts', import.meta.url).href;

async function runCluster(env: Record<string, string> = {}): Promise<unknown> {
  const { stdout } = await promisify(execFile)(process.execPath, [boot], {
    env: { ...process.env, RATELAB_TS_WORKER: app, ...env },
    timeout: 120_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) as string);
}

describe('createClusterLimiter(algorithm, policy, { name })', () => {
  it('consumes, allows, resets and waits through the primary, a token bucket of 2 per hour', async () => {
    expect(await runCluster()).toEqual([
      ['consume', 'primary'], // the primary decided: the name reached it
      ['allow', true],
      ['allow', false], // both units taken, no refill within the run
      ['reset', true], // the primary held the key
      ['allow', true], // a full quota after the reset
      ['reset', false], // nothing to forget
      ['reset', 'rejected: INVALID_KEY'],
      ['wait', 0], // the second unit, at once
      ['name', 'api'],
    ]);
  }, 120_000);

  it('a reset the primary does not answer within timeoutMs rejects; consume takes the fail mode', async () => {
    const steps = (await runCluster({ RATELAB_CLUSTER_MODE: 'deaf' })) as Array<[string, unknown]>;
    expect(steps).toEqual([
      ['consume', 'fail-closed'],
      ['allow', false],
      ['allow', false],
      ['reset', expect.stringMatching(/^rejected: .*did not answer the reset/)],
      ['name', 'api'],
    ]);
  }, 120_000);
});
