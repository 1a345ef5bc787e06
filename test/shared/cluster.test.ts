// node:cluster support with real cluster.fork() workers (issue 15): the workers share one
// limit exactly through the primary, and a primary that does not answer gets the fail
// mode's decision within the timeout (a real-clock bound the issue asks for; generous).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ALGORITHMS, type LimitSpec, type PolicyInput } from '../../src/core/policy.js';
import { serveClusterLimiter } from '../../src/shared/cluster-primary.js';

const boot = fileURLToPath(new URL('../support/ts-worker.mjs', import.meta.url));
const app = new URL('../support/cluster-app.ts', import.meta.url).href;

async function runCluster(env: Record<string, string>): Promise<unknown[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [boot], {
    env: { ...process.env, RATELAB_TS_WORKER: app, ...env },
    timeout: 120_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) as string) as unknown[];
}

describe('cluster workers sharing a limit through the primary', () => {
  it('4 workers x 1,000 calls on 10 keys, limit 100 per hour: exactly 1,000 admitted, every algorithm', async () => {
    const results = (await runCluster({ RATELAB_CLUSTER_MODE: 'serve', RATELAB_CLUSTER_CALLS: '1000' })) as Array<
      Record<string, number>
    >;
    expect(results).toHaveLength(4);
    for (const algorithm of ALGORITHMS) {
      expect(
        results.reduce((sum, counts) => sum + (counts[algorithm] as number), 0),
        algorithm,
      ).toBe(1000);
    }
  }, 120_000);
});

describe('a primary that does not answer', () => {
  type Call = { decision: { allowed: boolean; reason: string; remaining: number; error?: string }; ms: number };
  it.each([
    ['open', [true, true, true], 'fail-open'],
    ['closed', [false, false, false], 'fail-closed'],
    // Each worker's share: limit 4 over expectedNodes 2 = 2 per worker.
    ['local', [true, true, false], 'local-fallback'],
  ])(
    'failMode %s decides after the 200 ms timeout',
    async (failMode, allowed, reason) => {
      const results = (await runCluster({ RATELAB_CLUSTER_MODE: 'deaf', RATELAB_FAIL_MODE: failMode })) as Call[][];
      expect(results).toHaveLength(4);
      for (const calls of results) {
        expect(calls.map((c) => c.decision.allowed)).toEqual(allowed);
        expect(calls.every((c) => c.decision.reason === reason)).toBe(true);
        expect(new Set(calls.map((c) => c.decision.error))).toEqual(
          new Set(['the primary did not answer within 200 ms']),
        );
        // Waited for the timeout, and not much longer (generous: a loaded 2-core machine).
        for (const call of calls) expect(call.ms).toBeGreaterThanOrEqual(190);
        for (const call of calls) expect(call.ms).toBeLessThan(200 + 3000);
      }
    },
    120_000,
  );
});

describe('workers that exit with requests in flight', () => {
  it('8 workers each send 2,000 requests and exit: the primary survives and serves the next worker', async () => {
    for (let run = 0; run < 3; run++) {
      const results = await runCluster({ RATELAB_CLUSTER_MODE: 'exit' });
      expect(results).toEqual([{ exited: 8, reasons: { primary: 100 } }]);
    }
  }, 120_000);
});

describe('a burst from one worker while the primary is healthy', () => {
  // The defaults (timeoutMs 100, failMode open): a busy primary is not a late one, so no
  // call may take the fail mode, and the primary admits exactly the limit. Up to 3 runs: a
  // machine that stalls the primary itself for 100 ms (CPU starvation at a load average over
  // 10 on 2 cores does) makes it late by the definition, and then the fail mode is right;
  // before batching every run failed, all 10,000 calls admitted by fail-open.
  it.each([
    [1, 10_000],
    [1, 30_000],
    [4, 10_000],
  ])(
    '%i worker(s) x %i concurrent calls on one key, limit 1,000 per minute: exactly 1,000 admitted, all by the primary',
    async (workers, calls) => {
      const total = workers * calls;
      type Burst = { admitted: number; reasons: Record<string, number>; primaryStallMs: number };
      const clean = (r: Burst) => r.admitted === 1000 && r.reasons.primary === total;
      const runs: Burst[] = [];
      for (let run = 0; run < 3 && !runs.some(clean); run++) {
        runs.push(
          ...((await runCluster({
            RATELAB_CLUSTER_MODE: 'burst',
            RATELAB_CLUSTER_CALLS: String(calls),
            RATELAB_CLUSTER_WORKERS: String(workers),
          })) as Burst[]),
        );
      }
      expect(runs.find(clean) ?? runs, JSON.stringify(runs)).toMatchObject({
        admitted: 1000,
        reasons: { primary: total },
      });
    },
    120_000,
  );
});

describe('a primary that is stopped (SIGSTOP) with calls in flight', () => {
  type Stalled = { reasons: Record<string, number>; fastestMs: number; slowestMs: number };
  it.each([
    ['open', 'fail-open'],
    ['closed', 'fail-closed'],
  ])(
    'failMode %s: 2,000 concurrent calls all take the fail mode after the 200 ms timeout, not one timeout per batch',
    async (failMode, reason) => {
      const [result] = (await runCluster({ RATELAB_CLUSTER_MODE: 'stuck', RATELAB_FAIL_MODE: failMode })) as Array<{
        before: Record<string, number>;
        stalled: Stalled;
      }>;
      expect(result?.before).toEqual({ primary: 2 });
      expect(result?.stalled.reasons).toEqual({ [reason]: 2000 });
      // The queued calls fail over with the batch the primary was late on (generous bound: a
      // loaded 2-core machine), rather than each waiting its own turn and timeout.
      expect(result?.stalled.fastestMs).toBeGreaterThanOrEqual(190);
      expect(result?.stalled.slowestMs).toBeLessThan(200 + 3000);
    },
    120_000,
  );
});

describe('calls the fail mode answered are not applied when the primary wakes', () => {
  // A denied request changes nothing, as on every other backend: the 2,000 fail-closed
  // denials made while the primary was stopped must not spend its quota when it goes on.
  it('limit 10: 2 spent, 2,000 denied fail-closed while stopped, then the primary admits with 7 left', async () => {
    const [result] = (await runCluster({ RATELAB_CLUSTER_MODE: 'stuck', RATELAB_FAIL_MODE: 'closed' })) as Array<{
      after: unknown;
    }>;
    expect(result?.after).toEqual({ reason: 'primary', allowed: true, remaining: 7 });
  }, 120_000);
});

describe('key size at the primary', () => {
  // As the shared table: at most maxKeyBytes (default 128) UTF-8 bytes, else INVALID_KEY,
  // and a refused key is kept nowhere (the primary held 1 MB keys from workers).
  it('keys over maxKeyBytes in UTF-8 are INVALID_KEY and not kept; the others in the same batch are decided', async () => {
    const [result] = await runCluster({ RATELAB_CLUSTER_MODE: 'keys' });
    expect(result).toEqual({
      calls: {
        default: [
          'primary',
          "INVALID_KEY: key: 129 bytes in UTF-8, over the cluster limiter's maxKeyBytes (128)",
          "INVALID_KEY: key: 1000000 bytes in UTF-8, over the cluster limiter's maxKeyBytes (128)",
        ],
        narrow: [
          'primary',
          'primary',
          "INVALID_KEY: key: 18 bytes in UTF-8, over the cluster limiter's maxKeyBytes (16)",
        ],
      },
      keys: { default: 1, narrow: 2 },
    });
  }, 120_000);

  it.each([[0], [4097], [1.5], [Number.NaN], ['128']])(
    'serveClusterLimiter refuses maxKeyBytes %s with INVALID_ARGUMENT',
    (maxKeyBytes) => {
      expect(() =>
        serveClusterLimiter('bad', 'gcra', { limit: 1, windowMs: 1000 }, { maxKeyBytes: maxKeyBytes as number }),
      ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', field: 'maxKeyBytes' }));
    },
  );
});

describe('several limits on one key through the primary', () => {
  // The primary serves 50 per 10 minutes and 30 per hour (test/support/cluster-app.ts,
  // COMPOSITE_POLICY). Each row: a worker's policy, and what its call gets. No time passes
  // that matters: nothing refills within a run.
  const PRIMARY: LimitSpec[] = [
    { limit: 50, windowMs: 600_000, name: 'burst' },
    { limit: 30, windowMs: 3_600_000, name: 'hour', algorithm: 'token-bucket' },
  ];
  /** The primary's limits with entry `i` changed by `fields` (an undefined field is dropped, as JSON drops it). */
  const changed = (i: number, fields: Partial<LimitSpec>): LimitSpec[] =>
    PRIMARY.map((entry, j) => (j === i ? { ...entry, ...fields } : entry));
  const ROWS: Array<{ policy: PolicyInput; outcome: string; why: string }> = [
    { policy: PRIMARY, outcome: 'primary', why: 'the primary’s own limits' },
    {
      policy: changed(1, { limit: 2000 }),
      outcome: 'policy[1].limit: the primary enforces 30, this worker asked for 2000',
      why: 'a larger hourly limit',
    },
    {
      policy: changed(0, { windowMs: 60_000 }),
      outcome: 'policy[0].windowMs: the primary enforces 600000, this worker asked for 60000',
      why: 'another window',
    },
    {
      policy: changed(1, { algorithm: undefined }),
      outcome: 'policy[1].algorithm: the primary enforces "token-bucket", this worker asked for "sliding-log"',
      why: 'the limiter’s algorithm where the primary’s entry names its own',
    },
    {
      policy: changed(1, { name: 'hourly' }),
      outcome: 'policy[1].name: the primary enforces "hour", this worker asked for "hourly"',
      why: 'another name (headers and reports would disagree)',
    },
    {
      policy: changed(1, { burst: 40 }),
      outcome: 'policy[1].burst: the primary enforces 30, this worker asked for 40',
      why: 'another bucket capacity',
    },
    {
      policy: { limit: 50, windowMs: 600_000 },
      outcome: 'policy: the primary enforces 2 limits, this worker asked for 1 limit',
      why: 'one policy where the primary enforces two',
    },
  ];

  it('4 workers x 100 calls on one key: exactly 30 admitted (the hourly bound), each decision naming both limits; a worker with other limits is refused naming the entry', async () => {
    const [result] = (await runCluster({
      RATELAB_CLUSTER_MODE: 'composite',
      RATELAB_CLUSTER_POLICIES: JSON.stringify(ROWS.map((row) => row.policy)),
    })) as Array<{ admitted: number; names: string[]; policies: string[] }>;
    expect(result?.admitted).toBe(30);
    expect(result?.names).toEqual(['burst,hour']);
    for (const [i, row] of ROWS.entries()) {
      const expected =
        row.outcome === 'primary'
          ? 'primary'
          : `INVALID_POLICY: ${row.outcome}; create the worker's limiter with the primary's limits`;
      expect(result?.policies[i], `row ${i + 1}: ${row.why}`).toBe(expected);
    }
  }, 120_000);
});
