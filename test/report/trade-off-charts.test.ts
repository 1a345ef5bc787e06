import { describe, expect, it } from 'vitest';
import { PLAIN } from '../../src/report/text/color.js';
import { renderTradeOffCharts } from '../../src/report/text/trade-off-charts.js';
import type { WorkloadComparison } from '../../src/sim/comparison.js';
import { comparisonRow } from '../support/comparison-row.js';

function workload(name: string): WorkloadComparison {
  return {
    name,
    description: '',
    policy: { limit: 100, windowMs: 1000 },
    rows: [
      comparisonRow('token-bucket', 1.5, 5, { bytesPerKey: 84, speedRatio: 0.9 }),
      comparisonRow('sliding-log', 1, 0, { bytesPerKey: 108, speedRatio: 0.6 }),
    ],
    timelines: [],
    worstWindows: [],
    notes: [],
  };
}

describe('renderTradeOffCharts', () => {
  it('on a narrow terminal, a bar chart title goes on over its next lines above the bars', () => {
    const lines = renderTradeOffCharts([workload('a'), workload('b')], PLAIN, 40).split('\n');
    const title = lines.indexOf('memory per key (heap bytes per key,');
    expect(title).toBeGreaterThanOrEqual(0);
    expect(lines[title + 1]).toBe('  medians over 2 scenarios)');
    expect(lines[title + 2]).toMatch(/^token-bucket +█+.* 84 B$/);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(40);
  });
});
