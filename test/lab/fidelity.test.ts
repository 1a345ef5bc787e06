import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { fidelityCommand } from '../../src/cli/commands/fidelity.js';
import { largestExcess } from '../../src/fidelity/bucket-bound.js';
import type { FidelityCase } from '../../src/fidelity/case.js';
import { gcraCheck, textbookGcra, wildTolerance } from '../../src/fidelity/gcra-equivalence.js';
import { fidelityChecks, runFidelity, type FidelityReport } from '../../src/fidelity/suite.js';
import { bufferIO } from '../../src/report/io.js';
import { replayScenario, shippedScenario } from '../../src/fidelity/edges.js';
import { ALGORITHMS } from '../../src/core/policy.js';

const ROOT = join(import.meta.dirname, '../..');

/** Every case id the issue asks for (design table per algorithm, claims 2-8). */
const CASE_IDS = [
  'design/token-bucket',
  'design/gcra',
  'design/sliding-log',
  'design/sliding-counter',
  'design/fixed-window',
  'edge/fixed-window',
  'edge/sliding-counter',
  'token-bucket/bound',
  'gcra/token-bucket',
  'nodes/full-limit',
  'nodes/split-skewed',
  'cloudflare/mix',
  'cloudflare/near-share',
  'redis/lua-latency',
];

describe('ratelab fidelity', () => {
  let report: FidelityReport;
  beforeAll(async () => {
    report = await runFidelity();
  }, 120_000);

  it('reproduces every judged claim and skips the Redis case without --redis', () => {
    expect(report.cases.map((c) => c.id)).toEqual(CASE_IDS);
    expect(report.cases.filter((c) => c.reproduced === false).map((c) => `${c.id}: ${c.measured}`)).toEqual([]);
    expect(report.failed).toBe(0);
    const redis = report.cases.find((c) => c.id === 'redis/lua-latency');
    expect(redis?.verdict).toBe('skipped');
    expect(redis?.details.reason).toMatch(/--redis/);
  });

  it('gives every case its claim, source, scenario, expected, measured and verdict', () => {
    for (const c of report.cases) {
      for (const field of ['claim', 'source', 'scenario', 'expected', 'measured'] as const)
        expect(c[field], `${c.id}.${field}`).toMatch(/\S/);
      expect(c.reproduced === null ? ['reported', 'skipped'] : ['reproduced', 'not reproduced']).toContain(c.verdict);
    }
  });

  it('reproduces the figures the issue names: Cloudflare under 0.01%, the log O(limit), the others flat', () => {
    const byId = new Map(report.cases.map((c) => [c.id, c]));
    const mix = byId.get('cloudflare/mix')?.details as {
      errorPercent: number;
      worstWindowRatio: number;
      sources: number;
    };
    expect(mix.sources).toBe(270_000);
    expect(mix.errorPercent).toBeLessThan(0.01);
    expect(mix.worstWindowRatio).toBeLessThanOrEqual(1.15);
    const slope = (id: string) => (byId.get(id)?.details as { slopeBytesPerUnit: number }).slopeBytesPerUnit;
    expect(slope('design/sliding-log')).toBeGreaterThan(4);
    for (const id of ['design/token-bucket', 'design/gcra', 'design/sliding-counter', 'design/fixed-window'])
      expect(Math.abs(slope(id))).toBeLessThan(0.5);
    expect((byId.get('edge/fixed-window')?.details as { worstWindowRatio: number }).worstWindowRatio).toBe(2);
  });

  it('measures the same figures on a second run (memory bytes aside, which depend on the machine)', async () => {
    // The design check's replays repeat as the others do; its memory probes (15 child
    // processes) are left out of the second run to keep npm test short.
    const again = await runFidelity({ only: ['edge', 'token-bucket', 'gcra', 'nodes', 'cloudflare', 'redis'] });
    expect(again.cases).toEqual(report.cases.filter((c) => !c.id.startsWith('design/')));
    const design = await Promise.all(
      ['zipf-many-keys', 'sliding-counter-worst'].map((name) => replayScenario(shippedScenario(name), ALGORITHMS)),
    );
    const errors = report.cases.filter((c) => c.id.startsWith('design/')).map((c) => c.details.errorPercent);
    expect(errors).toEqual(
      ALGORITHMS.map((_, i) => ({ realistic: design[0]?.[i]?.errorRate, adversarial: design[1]?.[i]?.errorRate })),
    );
  }, 120_000);

  it("lists in the README's table exactly the cases it runs", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.split('### Claims, checked')[1]?.split('\n#')[0] ?? '';
    const ids = [...section.matchAll(/^([a-z-]+\/[a-z-]+)\s{2,}/gm)].map((m) => m[1]);
    expect(ids).toEqual(CASE_IDS);
  });
});

describe('ratelab fidelity on a narrow terminal', () => {
  it('prints a block per case within the width instead of a wrapped table row', async () => {
    for (const columns of ['80', '60']) {
      const io = bufferIO({ cwd: ROOT, env: { COLUMNS: columns } });
      expect(await fidelityCommand({ only: 'edge,gcra' }, io)).toBe(0);
      const lines = io.out().trimEnd().split('\n');
      expect(lines.filter((line) => line.length > Number(columns))).toEqual([]);
      expect(lines).toContain('edge/fixed-window  reproduced');
      expect(lines).toContain('  expected: 2.00x in one window');
    }
  });
});

describe('ratelab fidelity fails when a claim is not reproduced', () => {
  it('exits 1 (the gate code) with a GCRA whose tolerance is b*T, the bug found in the wild', async () => {
    const io = bufferIO({ cwd: ROOT });
    const code = await fidelityCommand({ checks: [gcraCheck(textbookGcra(wildTolerance))] }, io);
    expect(code).toBe(1);
    expect(io.out()).toMatch(/gcra\/token-bucket .* not reproduced/);
    expect(io.out()).toContain('0 of 1 claims reproduced');
  });

  it('exits 1 on an injected wrong expectation', async () => {
    const wrong = {
      name: 'wrong',
      run: async () => [{ ...report0(), verdict: 'not reproduced' as const, reproduced: false }],
    };
    const io = bufferIO({ cwd: ROOT });
    expect(await fidelityCommand({ checks: [wrong] }, io)).toBe(1);
  });

  it('ships the checks the --only help lists', () => {
    expect(fidelityChecks().map((c) => c.name)).toEqual([
      'design',
      'edge',
      'token-bucket',
      'gcra',
      'nodes',
      'cloudflare',
      'redis',
    ]);
  });
});

function report0(): FidelityCase {
  return {
    id: 'x/y',
    claim: 'c',
    source: 's',
    scenario: 'sc',
    expected: '1',
    measured: '2',
    verdict: 'reproduced',
    reproduced: true,
    details: {},
  };
}

describe('largestExcess (the O(n) check of the token bucket bound)', () => {
  it('equals the largest excess over every interval, computed pair by pair', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 100 }),
        (gaps, limit, windowMs) => {
          const times: number[] = [];
          let t = 0;
          for (const gap of gaps) times.push((t += gap % 7 === 0 ? 0 : gap));
          let brute = -Infinity;
          for (let i = 0; i < times.length; i++) {
            for (let j = i; j < times.length; j++) {
              // Every admitted time at t_i..t_j counts, ties included.
              const count = times.filter((x) => x >= (times[i] as number) && x <= (times[j] as number)).length;
              brute = Math.max(brute, count * windowMs - limit * ((times[j] as number) - (times[i] as number)));
            }
          }
          expect(largestExcess(times, limit, windowMs)).toBe(brute);
        },
      ),
    );
  });
});
