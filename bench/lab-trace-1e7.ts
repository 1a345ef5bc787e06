// A trace of 10 million requests replayed through all five algorithms (in lockstep, one
// read of the trace, as `ratelab compare --trace` does) without holding it in memory. The parent writes two CSV traces (1e6 and 1e7 lines, 10,000 keys) to a temp
// folder, then replays each in its own child process and reports the child's peak RSS:
// bounded memory means the 10x longer trace peaks at about the same RSS (ratio ~1x), far
// below what its arrivals would take as an array (measured here on 1e6 of them).
//
//   npx tsx bench/lab-trace-1e7.ts
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALGORITHMS } from '../src/core/policy.js';
import { builtinContender } from '../src/sim/contender.js';
import { replayLockstep } from '../src/sim/replay.js';
import { traceWorkload } from '../src/sim/workload.js';
import { Random } from '../src/traffic/random.js';

const KEYS = 10_000;
const PER_MS = 100;
const POLICY = { limit: 100, windowMs: 1000 };

async function writeTrace(path: string, lines: number): Promise<void> {
  const out = createWriteStream(path);
  const random = new Random(42);
  out.write('time_ms,key,cost\n');
  let chunk: string[] = [];
  for (let i = 0; i < lines; i++) {
    chunk.push(`${Math.floor(i / PER_MS)},client-${random.below(KEYS)},1`);
    if (chunk.length === 10_000) {
      if (!out.write(`${chunk.join('\n')}\n`)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      chunk = [];
    }
  }
  out.write(chunk.length > 0 ? `${chunk.join('\n')}\n` : '');
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

/** In the child: replay the trace through every algorithm in lockstep, as `ratelab compare --trace` does; print one JSON line. */
async function child(path: string): Promise<void> {
  const workload = traceWorkload(path, POLICY);
  const start = performance.now();
  const runs = await replayLockstep(
    ALGORITHMS.map((algorithm) => builtinContender(algorithm, POLICY)),
    workload.open(),
    { limit: POLICY.limit, windowMs: POLICY.windowMs, bucketMs: workload.bucketMs },
  );
  const seconds = (performance.now() - start) / 1000;
  const rows = runs.map(({ metrics }, i) => ({
    algorithm: ALGORITHMS[i] as string,
    offered: metrics.offered,
    admitted: metrics.admitted,
  }));
  process.stdout.write(`${JSON.stringify({ rows, seconds, peakRssMiB: process.resourceUsage().maxRSS / 1024 })}\n`);
}

/** Heap bytes per arrival when arrivals are held in an array: what a non-streaming replay would need. */
function arrayBytesPerArrival(count: number): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const random = new Random(7);
  const held = Array.from({ length: count }, (_, i) => ({
    t: Math.floor(i / PER_MS),
    key: `client-${random.below(KEYS)}`,
    cost: 1,
  }));
  gc?.();
  const bytes = (process.memoryUsage().heapUsed - before) / held.length;
  return bytes;
}

async function parent(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ratelab-trace-bench-'));
  try {
    const self = fileURLToPath(import.meta.url);
    console.log(
      `node ${process.version}; ${KEYS} keys, ${PER_MS} requests per ms, policy ${POLICY.limit} per ${POLICY.windowMs} ms; five algorithms per child process`,
    );
    const results: { lines: number; peak: number }[] = [];
    for (const lines of [1_000_000, 10_000_000]) {
      const path = join(dir, `trace-${lines}.csv`);
      await writeTrace(path, lines);
      const output = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', self, '--child', path], {
        encoding: 'utf8',
        maxBuffer: 1 << 20,
      });
      const report = JSON.parse(output.trim().split('\n').pop() as string) as {
        rows: { algorithm: string; offered: number; admitted: number }[];
        seconds: number;
        peakRssMiB: number;
      };
      console.log(
        `\n${lines.toLocaleString('en-US')} lines (${(statSync(path).size / 2 ** 20).toFixed(0)} MiB of CSV): peak RSS ${report.peakRssMiB.toFixed(0)} MiB; one lockstep replay of all five: ${report.seconds.toFixed(1)} s, ${(lines / report.seconds / 1e6).toFixed(2)}M arrivals/s`,
      );
      for (const row of report.rows)
        console.log(
          `  ${row.algorithm.padEnd(16)} ${row.offered.toLocaleString('en-US').padStart(11)} offered  ${row.admitted.toLocaleString('en-US').padStart(11)} admitted`,
        );
      results.push({ lines, peak: report.peakRssMiB });
      rmSync(path);
    }
    const small = results[0] as { peak: number };
    const large = results[1] as { peak: number };
    const perArrival = arrayBytesPerArrival(1_000_000);
    console.log(
      `\npeak RSS, 1e7 lines / 1e6 lines: ${(large.peak / small.peak).toFixed(2)}x for 10x the arrivals (bounded: ~1x)`,
    );
    console.log(
      `held as an array, 1e7 arrivals would take ~${((perArrival * 1e7) / 2 ** 20).toFixed(0)} MiB of heap (${perArrival.toFixed(0)} B each, measured on 1e6) against a peak RSS of ${large.peak.toFixed(0)} MiB`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') await child(process.argv[3] as string);
else await parent();
