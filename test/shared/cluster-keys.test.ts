// Keys through node:cluster, with real cluster.fork() workers: IPC's JSON carries every JS
// string unchanged (a lone surrogate as a \\u escape), so keys that differ only in lone
// surrogates are keys of their own, as in every limiter (the limiter contract,
// test/contract/limiter-contract.ts, which needs a ManualClock the primary cannot share).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const boot = fileURLToPath(new URL('../support/ts-worker.mjs', import.meta.url));
const app = new URL('../support/cluster-keys-app.ts', import.meta.url).href;

describe('cluster keys', () => {
  it('keeps apart keys that differ only in lone surrogates: each admitted once at limit 1, then denied', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [boot], {
      env: { ...process.env, RATELAB_TS_WORKER: app },
      timeout: 120_000,
    });
    const result = JSON.parse(stdout.trim().split('\n').at(-1) as string) as Record<string, string>;
    expect(Object.keys(result)).toHaveLength(7);
    expect(result['"user\\ud800"']).toBeDefined();
    for (const calls of Object.values(result)) expect(calls).toBe('primary:admitted,primary:denied');
  }, 120_000);
});
