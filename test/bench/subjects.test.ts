import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBenchRun } from '../../src/bench/bench-run.js';
import { runBench } from '../../src/bench/runner.js';
import { admittedDiffers } from '../../src/bench/admitted.js';
import {
  PEERS,
  PEER_POLICY,
  createDecide,
  moduleOf,
  peerConfiguration,
  peerInstalled,
  twoLimits,
  type PeerName,
} from '../../src/bench/subjects.js';
import { ALGORITHMS } from '../../src/core/policy.js';
import { createLimiter } from '../../src/memory/limiter.js';
import { Random } from '../../src/traffic/random.js';
import { ManualClock } from '../../src/core/clock.js';
import { allowedOf, loadLimiterModule } from '../../src/metrics/external-limiter.js';

const example = resolve(import.meta.dirname, '../../examples/my-limiter.mjs');

describe('peers, adapted to the --limiter contract', () => {
  it.each(Object.keys(PEERS) as PeerName[])('%s admits its limit, then denies', async (peer) => {
    expect(await peerInstalled(peer)).toBe(true);
    const limiter = await loadLimiterModule(moduleOf({ kind: 'peer', peer }), { limit: 3, windowMs: 60_000 }, () => 0);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(allowedOf(await limiter.consume('k', 1), peer));
    expect(answers).toEqual([true, true, true, false]);
  });

  it.each(Object.keys(PEERS) as PeerName[])(
    '%s runs in the bench under a policy it never denies, whatever the workload says',
    async (peer) => {
      const decide = await createDecide({ kind: 'peer', peer }, { limit: 3, windowMs: 60_000 }, () => 0);
      let admitted = 0;
      for (let i = 0; i < 10_000; i++)
        if (allowedOf(await (decide(`k${i % 7}`, 1) as Promise<boolean> | boolean), peer)) admitted++;
      expect(admitted).toBe(10_000);
      expect(await peerConfiguration(peer)).toContain(String(PEER_POLICY.limit));
    },
  );
});

describe('peers in a bench run', () => {
  it("admit the reference's share (every call) on every workload they run, and say how they were configured", async () => {
    const run = await runBench(
      {
        quick: false,
        algorithms: [],
        keyCounts: [10_000],
        rounds: 2,
        processes: 1,
        roundMs: 5,
        peers: true,
        modules: [],
        memoryKeys: 0,
        harness: false,
      },
      () => undefined,
    );
    const peers = Object.keys(PEERS);
    const figures = run.figures.filter((f) => peers.includes(f.subject));
    // Peers skip the workloads whose outcome depends on the clock (Zipf, denied-half).
    expect(figures.map((f) => f.name).sort()).toEqual(
      peers.flatMap((peer) => [`${peer}/hot-key`, `${peer}/keys-1e4`]).sort(),
    );
    for (const figure of figures) {
      const reference = run.figures.find((f) => f.name === `reference/${figure.workload}`);
      expect(reference?.admitted).toBe(1);
      expect({ name: figure.name, admitted: figure.admitted }).toEqual({ name: figure.name, admitted: 1 });
    }
    expect(admittedDiffers(run)).toEqual([]);
    expect(run.peers?.map((p) => p.name)).toEqual(peers);
  }, 120_000);
});

describe('examples/my-limiter.mjs, as the benchmark loads it', () => {
  it('is a leaky bucket that reads only the clock it is given', async () => {
    const clock = new ManualClock(0);
    const limiter = await loadLimiterModule(example, { limit: 2, windowMs: 1000 }, clock);
    const at = async (ms: number, cost = 1) => {
      clock.set(ms);
      return limiter.consume('k', cost);
    };
    expect(await at(0)).toEqual({ allowed: true, retryAfterMs: 0 });
    expect(await at(0)).toEqual({ allowed: true, retryAfterMs: 0 });
    // Full: one unit drains in 500 ms.
    expect(await at(0)).toEqual({ allowed: false, retryAfterMs: 500 });
    expect(await at(499)).toMatchObject({ allowed: false });
    expect(await at(500)).toEqual({ allowed: true, retryAfterMs: 0 });
    expect(await at(500, 3)).toEqual({ allowed: false, retryAfterMs: Infinity });
  });
});

describe('twoLimits, the policy of the 2-limits subject', () => {
  it.each(ALGORITHMS)(
    '%s: the long limit never denies what the short one admits, so both subjects decide alike',
    (algorithm) => {
      const policy = { limit: 10, windowMs: 1000, burst: 15 };
      const clock = new ManualClock(0);
      const one = createLimiter(algorithm, policy, { clock });
      const two = createLimiter(algorithm, twoLimits(policy), { clock });
      const random = new Random(7);
      let admitted = 0;
      for (let i = 0; i < 20_000; i++) {
        clock.advance(random.below(60)); // bursts and pauses, about 33 offered per window
        const alone = one.consume('k').allowed;
        expect(two.consume('k').allowed).toBe(alone);
        if (alone) admitted++;
      }
      expect(admitted).toBeGreaterThan(2000); // the short limit admitted and denied many: the replay tested both
    },
  );
});

describe('runBench, end to end on a tiny plan', () => {
  it('writes a run that validates as a baseline, every figure with its ratio to the reference', async () => {
    const run = await runBench(
      {
        quick: true,
        algorithms: ['token-bucket'],
        keyCounts: [1000],
        rounds: 4,
        processes: 2,
        roundMs: 5,
        peers: false,
        modules: [example],
        memoryKeys: 2000,
        harness: true,
      },
      () => undefined,
    );
    expect(parseBenchRun(JSON.stringify(run), 'run')).toEqual(run);
    expect(run.figures.map((f) => f.name)).toEqual([
      'reference/hot-key',
      'reference/keys-1e3',
      'token-bucket/hot-key',
      'token-bucket/keys-1e3',
      'token-bucket:1-limit/hot-key',
      'token-bucket:1-limit/keys-1e3',
      'token-bucket:2-limits/hot-key',
      'token-bucket:2-limits/keys-1e3',
      'token-bucket:listener/hot-key',
      'token-bucket:listener/keys-1e3',
      'module:my-limiter.mjs/hot-key',
      'module:my-limiter.mjs/keys-1e3',
      'reference/memory',
      'token-bucket/memory',
      'module:my-limiter.mjs/memory',
    ]);
    for (const figure of run.figures.filter((f) => f.unit === 'decisions/s' && f.subject !== 'reference')) {
      expect(figure).toMatchObject({ samples: 4, admitted: 1 });
      expect(figure.ratioSamples).toHaveLength(4);
    }
    expect(run.figures.find((f) => f.name === 'reference/memory')?.ratio).toBe(1);
    expect(run.harness?.workload).toBe('hot-key');
    expect(run.machine.node).toBe(process.version);
  }, 60_000);
});

describe('a --limiter module that breaks while measured', () => {
  it('is bad input (INVALID_LIMITER_MODULE, naming it), not an internal error', async () => {
    const dir = await mkdtemp(resolve(tmpdir(), 'ratelab-module-'));
    const path = resolve(dir, 'throws.mjs');
    await writeFile(
      path,
      "export default () => ({ consume(key) { if (key === 'key:0') return true; throw new Error('boom'); } });\n",
    );
    try {
      const plan = {
        quick: true,
        algorithms: [],
        keyCounts: [1000],
        rounds: 2,
        processes: 1,
        roundMs: 5,
        peers: false,
        modules: [path],
        memoryKeys: 0,
        harness: false,
      };
      await expect(runBench(plan, () => undefined)).rejects.toMatchObject({
        code: 'INVALID_LIMITER_MODULE',
        message: `${path}: consume() threw: boom`,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
  // Issue 11 item 6: a promise that never settles used to end the child with exit 13 and no word.
  it.each([
    { source: 'export default () => ({ consume: () => new Promise(() => {}) });', call: 'its first consume()' },
    {
      source: "export default () => ({ consume: async (key) => key === 'key:0' || new Promise(() => {}) });",
      call: 'a consume() of a batch of 1000',
    },
  ])(
    'one whose consume never settles: LIMITER_TIMEOUT naming it and the call ($call)',
    async ({ source, call }) => {
      const dir = await mkdtemp(resolve(tmpdir(), 'ratelab-module-'));
      const path = resolve(dir, 'hangs.mjs');
      await writeFile(path, `${source}\n`);
      try {
        const plan = {
          quick: true,
          algorithms: [],
          keyCounts: [1000],
          rounds: 2,
          processes: 1,
          roundMs: 5,
          peers: false,
          modules: [path],
          limiterTimeoutMs: 100,
          memoryKeys: 0,
          harness: false,
        };
        await expect(runBench(plan, () => undefined)).rejects.toMatchObject({
          code: 'LIMITER_TIMEOUT',
          message: `${path}: ${call} did not settle within 100ms: the module hangs (bound: --limiter-timeout)`,
        });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    30_000,
  );
});
