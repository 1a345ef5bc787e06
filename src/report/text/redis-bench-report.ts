import { median } from 'simple-statistics';
import { RLF, medianRatio, type RedisBenchResult, type RedisContenderFigures } from '../../bench/redis-throughput.js';
import { count, renderTable, rightAligned, type Column } from './table.js';

const totalCpu = (f: RedisContenderFigures) => f.nodeCpuUs.map((node, i) => node + (f.serverCpuUs[i] as number));

const COLUMNS: Column[] = [
  { header: 'contender' },
  ...rightAligned('calls/s', 'x RLF', 'Node', 'server', 'cmd', 'CPU x RLF', 'p50 ms', 'p99 ms'),
];

/**
 * The `ratelab bench --redis` report: per in-flight level, each contender's medians over
 * rounds, and its ratios to rate-limiter-flexible as medians of per-round ratios. Fits 80
 * columns: the contenders go by short names, which the heading spells out.
 */
export function renderRedisBench(result: RedisBenchResult): string {
  const { plan } = result;
  const lines = [
    `Redis ${result.redisVersion}, one ioredis connection, ${count(plan.keys)} keys, every call admitted.`,
    `ratelab = ratelab's token bucket; RLF = ${RLF}.`,
    `Medians of ${plan.rounds} alternating rounds of ${count(plan.calls)} calls; x RLF = median of`,
    'per-round ratios. CPU per decision in us: Node = this process (cpuUsage),',
    'server = redis-server (INFO cpu), cmd = inside commands (INFO commandstats).',
  ];
  for (const level of result.levels) {
    const baseline = level.contenders.find((c) => c.name === RLF);
    const rows = level.contenders.map((c) => [
      shortName(c.name),
      count(Math.round(median(c.callsPerSec))),
      baseline ? medianRatio(c, baseline, (f) => f.callsPerSec).toFixed(2) : '-',
      fixed(c.nodeCpuUs, 1),
      fixed(c.serverCpuUs, 1),
      fixed(c.commandUs, 1),
      baseline ? medianRatio(c, baseline, totalCpu).toFixed(2) : '-',
      fixed(c.p50Ms, 2),
      fixed(c.p99Ms, 2),
    ]);
    lines.push('', `${level.inFlight} in flight`, renderTable(COLUMNS, rows).trimEnd());
  }
  for (const note of result.notes) lines.push(`note: ${note}`);
  return `${lines.join('\n')}\n`;
}

function shortName(name: string): string {
  return name === RLF ? 'RLF' : name.replace('ratelab token bucket, ', 'ratelab ');
}

function fixed(values: number[], digits: number): string {
  return median(values).toFixed(digits);
}
