import { Chalk } from 'chalk';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { MetricsRecorder } from '../../src/metrics/recorder.js';
import type { Algorithm } from '../../src/core/policy.js';
import { comparisonCsv } from '../../src/report/data/compare-csv.js';
import { comparisonJson } from '../../src/report/data/compare-json.js';
import { renderComparison } from '../../src/report/text/compare-table.js';
import { renderLabelBreakdown } from '../../src/report/text/label-breakdown.js';
import { parseScenario } from '../../src/scenario/load-scenario.js';
import { compareWorkloads } from '../../src/sim/compare.js';
import { builtinContender } from '../../src/sim/contender.js';
import { scenarioWorkload } from '../../src/sim/workload.js';

const plain = new Chalk({ level: 0 });

describe('MetricsRecorder: counts per label', () => {
  // limit 2 per 100 ms on one key; lane 0 admits everything, lane 1 nothing.
  const arrivals: [number, string | undefined][] = [
    [0, 'user'],
    [0, 'attacker'],
    [0, 'attacker'],
    [10, 'user'],
    [200, undefined],
  ];

  it('offered, admitted, false denials and false admits per label and lane, in the order first seen; unlabelled arrivals in none', () => {
    const recorder = new MetricsRecorder({ limit: 2, windowMs: 100, bucketMs: 100 }, 2);
    for (const [t, label] of arrivals) {
      recorder.offer(t, 'k', 1, undefined, label);
      recorder.decide(0, true);
      recorder.decide(1, false);
      recorder.commit();
    }
    expect(recorder.result(0).labels).toEqual([
      { label: 'user', offered: 2, admitted: 2, falseDenials: 0, falseAdmits: 1 },
      { label: 'attacker', offered: 2, admitted: 2, falseDenials: 0, falseAdmits: 1 },
    ]);
    expect(recorder.result(1).labels).toEqual([
      { label: 'user', offered: 2, admitted: 0, falseDenials: 1, falseAdmits: 0 },
      { label: 'attacker', offered: 2, admitted: 0, falseDenials: 1, falseAdmits: 0 },
    ]);
    expect(recorder.result(0).offered).toBe(5);
  });

  it("fairness: Jain's index over each client's admissions, for a label whose arrivals name their client", () => {
    const recorder = new MetricsRecorder({ limit: 10, windowMs: 1000, bucketMs: 1000 });
    // [t, label, client, admitted, why]
    const rows: [number, string, number | undefined, boolean, string][] = [
      [0, 'even', 0, true, 'client 0: 1 of 1'],
      [1, 'even', 1, true, 'client 1: 1 of 1: the same share'],
      [2, 'uneven', 0, true, 'client 0 gets both of its label'],
      [3, 'uneven', 0, true, ''],
      [4, 'uneven', 1, false, 'client 1 is denied: a share of 0 still counts'],
      [5, 'alone', 7, true, 'one client: no fairness between clients'],
      [6, 'anonymous', undefined, true, 'no client named: no fairness at all'],
    ];
    for (const [t, label, client, admitted] of rows) {
      recorder.offer(t, `k${t}`, 1, undefined, label, undefined, client);
      recorder.decide(0, admitted);
      recorder.commit();
    }
    const fairness = Object.fromEntries(recorder.result(0).labels.map((l) => [l.label, l.fairness]));
    // (sum x)^2 / (n sum x^2): (1+1)^2 / (2 * 2) = 1; (2+0)^2 / (2 * 4) = 0.5 (1/n: one client got all).
    expect(fairness).toEqual({ even: 1, uneven: 0.5, alone: null, anonymous: undefined });
  });

  it('is empty when no arrival has a label', () => {
    const recorder = new MetricsRecorder({ limit: 2, windowMs: 100, bucketMs: 100 });
    recorder.record(0, 'k', 1, true);
    expect(recorder.result().labels).toEqual([]);
  });
});

// A legitimate user and an attacker on the same key (one tenant): the fixed window lets the
// attacker's edge burst through and then turns the user away.
const SHARED_KEY = `name: shared-key
description: a user and an attacker on one key
policy: { limit: 10, window: 1s }
duration: 3s
seed: 1
sources:
  - { kind: steady, rate: 4/s, keys: tenant, label: user }
  - { kind: burst, at: 990ms, count: 10, keys: tenant, label: attacker }
  - { kind: burst, at: 1000ms, count: 10, keys: tenant, label: attacker }
`;

async function compareShared(algorithms: Algorithm[]) {
  const workload = scenarioWorkload(parseScenario(SHARED_KEY, 'shared.yaml'));
  return compareWorkloads([workload], {
    contenders: (policy) => algorithms.map((a) => builtinContender(a, policy)),
    measure: false,
  });
}

describe('labels through a comparison', () => {
  it('each row splits its counts by label, summing to the row', async () => {
    const [result] = await compareShared(['sliding-log', 'fixed-window']);
    for (const row of result!.rows) {
      const labels = row.labels ?? [];
      expect(labels.map((l) => l.label)).toEqual(['user', 'attacker']);
      expect(labels.reduce((sum, l) => sum + l.offered, 0)).toBe(row.offered);
      expect(labels.reduce((sum, l) => sum + l.admitted, 0)).toBe(row.admitted);
      expect(labels.reduce((sum, l) => sum + l.falseDenials, 0)).toBe(row.falseDenials);
      expect(labels.reduce((sum, l) => sum + l.falseAdmits, 0)).toBe(row.falseAdmits);
    }
    const exact = result!.rows[0]!.labels!;
    expect(exact.every((l) => l.falseAdmits === 0 && l.falseDenials === 0)).toBe(true);
    const fixed = result!.rows[1]!.labels!;
    expect(fixed.find((l) => l.label === 'attacker')?.falseAdmits).toBeGreaterThan(0);
    expect(fixed.find((l) => l.label === 'user')?.falseDenials).toBeGreaterThan(0);
  });

  it('JSON rows carry labels; the CSV labels cell reads label=offered/admitted/false_denials/false_admits', async () => {
    const results = await compareShared(['fixed-window']);
    const row = results[0]!.rows[0]!;
    const json = JSON.parse(comparisonJson(results, ['s'])) as { rows: { labels: unknown }[] };
    expect(json.rows[0]!.labels).toEqual(row.labels);
    const [record] = parse(comparisonCsv(results), { columns: true }) as Record<string, string>[];
    expect(record!.labels).toBe(
      row.labels!.map((l) => `${l.label}=${l.offered}/${l.admitted}/${l.falseDenials}/${l.falseAdmits}`).join(';'),
    );
    expect(record!.labels).toMatch(/^user=\d+\/\d+\/\d+\/\d+;attacker=\d+\/\d+\/\d+\/\d+$/);
  });

  it('the terminal breakdown lists each label with each algorithm, under the table; nothing without labels', async () => {
    const [result] = await compareShared(['sliding-log', 'fixed-window']);
    const text = renderLabelBreakdown(result!.rows, plain);
    const lines = text.trimEnd().split('\n');
    expect(lines[1]).toMatch(/^label\s+algorithm\s+offered\s+admitted\s+false-\s+false\+$/);
    expect(
      lines.slice(3).map((line) =>
        line
          .split(/\s{2,}/)
          .slice(0, 2)
          .join('|'),
      ),
    ).toEqual(['user|sliding-log', '|fixed-window', 'attacker|sliding-log', '|fixed-window']);
    expect(renderComparison(result!, plain)).toContain(text.trimEnd());
    expect(
      renderLabelBreakdown(
        result!.rows.map((row) => ({ ...row, labels: [] })),
        plain,
      ),
    ).toBe('');
  });
});
