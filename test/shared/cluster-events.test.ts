// Decision events and shadow mode across node:cluster: a worker's limiter in shadow lets
// every request through and reports exactly the denials an enforcing worker limiter gets on
// the same traffic, with durationNs (it answers over IPC); the primary decides as enforcing
// (its own listener counts `denied`) and refuses `enforce`, which is each worker's.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const boot = fileURLToPath(new URL('../support/ts-worker.mjs', import.meta.url));
const app = new URL('../support/cluster-events-app.ts', import.meta.url).href;

describe('decision events and shadow mode in node:cluster', () => {
  it('1,000 requests at a limit of 10: the shadow worker admits all, 990 shadow-denied, the enforcing one’s denials', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [boot], {
      env: { ...process.env, RATELAB_TS_WORKER: app },
      timeout: 120_000,
    });
    expect(JSON.parse(stdout.trim().split('\n').at(-1) as string)).toEqual({
      worker: {
        denied: 990,
        sameRequests: true,
        admittedInShadow: 1000,
        outcomes: { allowed: 10, 'shadow-denied': 990 },
        limiters: ['trial'], // the name the primary serves it under
        limits: ['1h'],
        durations: true,
        reasons: ['primary'],
      },
      primary: { allowed: 10, denied: 990 }, // the primary enforced: the worker's shadow turned them
      refusal: { code: 'INVALID_ARGUMENT', field: 'enforce' },
    });
  }, 120_000);
});
