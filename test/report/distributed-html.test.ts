// The data of `distributed --html` (src/report/html/distributed-html.ts): the designs'
// accuracy and their costs in two tables, the cost bars, and the trade-off of error
// against each cost; every figure also in the CSV. The page in Chromium:
// test/report/distributed-browser.test.ts.
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { ACCURACY_COLUMNS } from '../../src/report/accuracy-cells.js';
import { distributedCsv } from '../../src/report/data/distributed-csv.js';
import { distributedReport } from '../../src/report/html/distributed-html.js';
import { simulateDistributed } from '../../src/sim/distributed/simulate.js';
import { fleet, poisson, scenario } from '../distributed/helpers.js';

const traffic = scenario('10s', poisson(150));
const outage = { startMs: 2_000, endMs: 4_000 };
const designs = [fleet({ rttMs: 2 }), fleet({ strategy: 'local-split' }), fleet({ strategy: 'sync', syncMs: 100 })];

describe('distributed --html data', () => {
  it('puts each design at (error %, cost) for each cost the simulator measures, the median of one point being that point', async () => {
    const result = await simulateDistributed(traffic, designs);
    const { tradeOff } = distributedReport(result);
    expect(tradeOff?.costs.map((axis) => [axis.label, axis.unit, axis.better])).toEqual([
      ['store calls (per decision)', 'per decision', 'lower'],
      ['added latency, mean (ms)', 'ms', 'lower'],
      ['added latency, p99 (ms)', 'ms', 'lower'],
    ]);
    expect(tradeOff?.contenders).toEqual(['central', 'local-split', 'sync']);
    const [central, split, sync] = result.rows;
    expect(tradeOff?.points).toEqual([
      { contender: 'central', scenario: 'test', x: 0, costs: [1, 2, 2] },
      { contender: 'local-split', scenario: 'test', x: Number(split!.errorRate.toFixed(3)), costs: [0, 0, 0] },
      {
        contender: 'sync',
        scenario: 'test',
        x: Number(sync!.errorRate.toFixed(3)),
        // 4 nodes at each of the 100 ticks of 10 s, a call each.
        costs: [Number(((4 * 100) / sync!.offered).toPrecision(4)), 0, 0],
      },
    ]);
    expect(central!.errorRate).toBe(0);
    expect(tradeOff?.medians).toEqual(tradeOff?.points.map((point) => ({ ...point, scenario: 'median' })));
  });

  it('draws bars of the calls per decision (the figure alone: the title says per what) and of the mean added latency, one per design', async () => {
    const result = await simulateDistributed(traffic, designs);
    const bars = distributedReport(result).scenarios[0]?.bars;
    expect(bars?.map((chart) => [chart.title, chart.unit])).toEqual([
      ['store calls per decision (lower is cheaper)', ''],
      ['mean added wait (ms, lower is cheaper)', 'ms'],
    ]);
    expect(bars?.[0]?.bars.map((bar) => bar.name)).toEqual(['central', 'local-split', 'sync']);
    expect(bars?.[1]?.bars.map((bar) => bar.value)).toEqual([2, 0, 0]);
  });

  it.each([
    { outage: undefined, extra: [], why: 'no outage: no column that would be empty' },
    {
      outage,
      extra: ['outage: admitted / offered'],
      why: 'with an outage, what was admitted while the store was down',
    },
  ])('splits the figures into an accuracy table and a cost table ($why)', async ({ outage: down, extra }) => {
    const result = await simulateDistributed(
      traffic,
      designs.map((design) => ({ ...design, ...(down ? { outage: down } : {}) })),
    );
    const scenario = distributedReport(result).scenarios[0];
    expect(scenario?.table.columns).toEqual(['design', ...ACCURACY_COLUMNS]);
    expect(scenario?.facts.map((table) => table.columns)).toEqual([
      ['design', 'store calls', 'calls / decision', 'added latency ms', 'p99 ms', ...extra],
    ]);
    const costs = scenario?.facts[0]?.rows ?? [];
    expect(costs.map((row) => row.slice(0, 2))).toEqual(result.rows.map((row) => [row.design, row.storeCalls]));
  });

  it('charts nothing the CSV does not carry: each point and bar is a CSV figure, rounded', async () => {
    const result = await simulateDistributed(traffic, designs);
    const report = distributedReport(result);
    const csv = parse(distributedCsv(result), { columns: true }) as Record<string, string>[];
    const close = (charted: number, exact: string, places: number) =>
      expect(charted).toBeCloseTo(Number(exact), places);
    report.tradeOff?.points.forEach((point, i) => {
      const row = csv[i] as Record<string, string>;
      close(point.x, row.error_percent as string, 2);
      close(point.costs[0] as number, row.store_calls_per_decision as string, 4);
      close(point.costs[1] as number, row.added_latency_ms as string, 2);
      close(point.costs[2] as number, row.added_latency_p99_ms as string, 2);
    });
    report.scenarios[0]?.bars?.[0]?.bars.forEach((bar, i) =>
      close(bar.value, (csv[i] as Record<string, string>).store_calls_per_decision as string, 4),
    );
  });
});
