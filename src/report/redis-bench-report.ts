import { median } from 'simple-statistics';
import { RLF, medianRatio, type RedisBenchResult, type RedisContenderFigures } from '../bench/redis-throughput.js';

const totalCpu = (f: RedisContenderFigures) => f.nodeCpuUs.map((node, i) => node + (f.serverCpuUs[i] as number));

/**
 * The `ratelab bench --redis` report: per in-flight level, each contender's medians over
 * rounds, and its ratios to rate-limiter-flexible as medians of per-round ratios.
 */
export function renderRedisBench(result: RedisBenchResult): string {
  const { plan } = result;
  const lines = [
    `Redis ${result.redisVersion}, one ioredis connection, token bucket, ${plan.keys.toLocaleString('en-US')} keys, every call admitted;`,
    `medians of ${plan.rounds} alternating rounds of ${plan.calls.toLocaleString('en-US')} calls; x RLF = median of per-round ratios to ${RLF}`,
    `CPU per decision in us: Node = this process (process.cpuUsage), server = redis-server (INFO cpu), cmd = inside commands (INFO commandstats)`,
  ];
  for (const level of result.levels) {
    const baseline = level.contenders.find((c) => c.name === RLF);
    lines.push('', `${level.inFlight} in flight`);
    lines.push(`  ${'contender'.padEnd(34)} ${'calls/s'.padStart(9)} ${'x RLF'.padStart(6)} ${'Node'.padStart(6)} ${'server'.padStart(6)} ${'cmd'.padStart(6)} ${'CPU x RLF'.padStart(9)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)}`);
    for (const c of level.contenders) {
      const ratio = baseline ? medianRatio(c, baseline, (f) => f.callsPerSec).toFixed(2) : '-';
      const cpuRatio = baseline ? medianRatio(c, baseline, totalCpu).toFixed(2) : '-';
      lines.push(
        `  ${c.name.padEnd(34)} ${Math.round(median(c.callsPerSec)).toLocaleString('en-US').padStart(9)} ${ratio.padStart(6)} ${fixed(c.nodeCpuUs, 1, 6)} ${fixed(c.serverCpuUs, 1, 6)} ${fixed(c.commandUs, 1, 6)} ${cpuRatio.padStart(9)} ${fixed(c.p50Ms, 2, 7)} ${fixed(c.p99Ms, 2, 7)}`,
      );
    }
  }
  for (const note of result.notes) lines.push(`note: ${note}`);
  return `${lines.join('\n')}\n`;
}

function fixed(values: number[], digits: number, width: number): string {
  return median(values).toFixed(digits).padStart(width);
}
