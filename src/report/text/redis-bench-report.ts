import { median } from 'simple-statistics';
import type { ChalkInstance } from 'chalk';
import { PLAIN } from './color.js';
import { RLF, medianRatio, type RedisBenchResult, type RedisContenderFigures } from '../../bench/redis-throughput.js';
import { redisMedians, type RedisContenderMedians } from '../redis-bench-medians.js';
import { barChart } from './bar-chart.js';
import { count, renderTable, rightAligned, type Column } from './table.js';

const totalCpu = (f: RedisContenderFigures) => f.nodeCpuUs.map((node, i) => node + (f.serverCpuUs[i] as number));

const COLUMNS: Column[] = [
  { header: 'contender' },
  ...rightAligned('calls/s', 'x RLF', 'Node', 'server', 'cmd', 'CPU x RLF', 'p50 ms', 'p99 ms'),
];

/**
 * The `ratelab bench --redis` report: per in-flight level, each contender's medians over
 * rounds, and its ratios to rate-limiter-flexible as medians of per-round ratios. Fits 80
 * columns: the contenders go by short names, which the heading spells out. Bars of x RLF
 * per level close it.
 */
export function renderRedisBench(result: RedisBenchResult, paint: ChalkInstance = PLAIN, width = 80): string {
  const { plan } = result;
  const lines = [
    `Redis ${result.redisVersion}, one ioredis connection, ${count(plan.keys)} keys, every call admitted.`,
    `ratelab = ratelab's token bucket; RLF = ${RLF}.`,
    `Medians of ${plan.rounds} alternating rounds of ${count(plan.calls)} calls; x RLF = median of`,
    'per-round ratios. CPU per decision in us: Node = this process (cpuUsage),',
    'server = redis-server (INFO cpu), cmd = inside commands (INFO commandstats).',
  ];
  const medians = redisMedians(result);
  for (const level of result.levels) {
    const baseline = level.contenders.find((c) => c.name === RLF);
    const rows = level.contenders.map((c) => [
      shortName(c.name),
      count(medianOf(medians, level.inFlight, c.name).callsPerSec),
      xRlfCell(medianOf(medians, level.inFlight, c.name).xRlf),
      fixed(c.nodeCpuUs, 1),
      fixed(c.serverCpuUs, 1),
      fixed(c.commandUs, 1),
      baseline ? medianRatio(c, baseline, totalCpu).toFixed(2) : '-',
      fixed(c.p50Ms, 2),
      fixed(c.p99Ms, 2),
    ]);
    lines.push('', `${level.inFlight} in flight`, renderTable(COLUMNS, rows).trimEnd());
  }
  lines.push('', ...xRlfBars(medians, paint, width));
  for (const note of result.notes) lines.push(`note: ${note}`);
  return `${lines.join('\n')}\n`;
}

function medianOf(
  medians: readonly RedisContenderMedians[],
  inFlight: number,
  contender: string,
): RedisContenderMedians {
  return medians.find((m) => m.inFlight === inFlight && m.contender === contender) as RedisContenderMedians;
}

function xRlfCell(ratio: number | null): string {
  return ratio === null ? '-' : ratio.toFixed(2);
}

/** Bars of x RLF, a group per in-flight level on one scale from 0; none without rate-limiter-flexible. */
function xRlfBars(medians: readonly RedisContenderMedians[], paint: ChalkInstance, width: number): string[] {
  const levels = [...new Set(medians.map((m) => m.inFlight))];
  const groups = levels
    .map((inFlight) => ({
      heading: `${inFlight} in flight`,
      bars: medians.flatMap((m) =>
        m.inFlight === inFlight && m.xRlf !== null ? [{ label: shortName(m.contender), value: m.xRlf }] : [],
      ),
    }))
    .filter((group) => group.bars.length > 0);
  if (groups.length === 0) return [];
  const title = paint.bold('calls/s x RLF (longer is faster)');
  return barChart({ title, groups, format: (v) => `${v.toFixed(2)}x`, width, paint });
}

function shortName(name: string): string {
  return name === RLF ? 'RLF' : name.replace('ratelab token bucket, ', 'ratelab ');
}

function fixed(values: number[], digits: number): string {
  return median(values).toFixed(digits);
}
