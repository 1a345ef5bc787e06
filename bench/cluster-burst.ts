// A burst from cluster workers at the defaults (timeoutMs 100, failMode open) against a
// sliding log of 1,000 per minute in the primary: per run, how many calls the primary
// decided and how many the fail mode did, the longest stall of each process's event loop
// (a 5 ms interval timer running late: the machine's CPU starvation, which the primary's
// lateness includes), the burst's wall time and the load average. Every call should be the
// primary's unless the primary itself stalled about timeoutMs.
//
//   npx tsx bench/cluster-burst.ts [--workers 1] [--calls 30000 (per worker)] [--runs 6]
import cluster from 'node:cluster';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createClusterLimiter, serveClusterLimiter } from '../src/shared/index.js';
import { stallProbe } from '../test/support/stall-probe.js';
import { numberArg } from './redis-support.js';

const POLICY = { limit: 1000, windowMs: 60_000 };

interface Run {
  primary: number;
  failOpen: number;
  admitted: number;
  workerStallMs: number;
  ms: number;
}

async function primary(): Promise<void> {
  const workers = numberArg('--workers', 1);
  const calls = numberArg('--calls', 30_000);
  const runs = numberArg('--runs', 6);
  console.log(
    `${workers} worker(s) x ${calls} concurrent calls on one key, limit 1,000 per minute, timeoutMs 100, failMode open`,
  );
  console.log('run  primary  fail-open  admitted  primary stall ms  worker stall ms  burst ms  load avg');
  for (let run = 1; run <= runs; run++) {
    const served = serveClusterLimiter(`burst-${run}`, 'sliding-log', POLICY);
    const stall = stallProbe();
    const result = sum(await Promise.all(Array.from({ length: workers }, () => burst(`burst-${run}`, calls))));
    const primaryStall = stall();
    served.close();
    const cells = [
      run,
      result.primary,
      result.failOpen,
      result.admitted,
      primaryStall.toFixed(0),
      result.workerStallMs.toFixed(0),
      result.ms.toFixed(0),
      loadavg()[0]?.toFixed(1),
    ];
    const widths = [3, 7, 9, 8, 16, 15, 8, 8];
    console.log(cells.map((cell, i) => String(cell).padStart(widths[i] as number)).join('  '));
  }
}

/** One worker's burst of `calls` on the limiter `name`, to its figures. */
function burst(name: string, calls: number): Promise<Run> {
  return new Promise<Run>((done) => {
    const worker = cluster.fork({ BURST_NAME: name, BURST_CALLS: String(calls) });
    worker.on('message', (message: { run?: Run }) => {
      if (message.run === undefined) return;
      worker.kill();
      done(message.run);
    });
  });
}

/** The workers' counts added up; their longest stall and the slowest burst. */
function sum(runs: readonly Run[]): Run {
  const total = (field: 'primary' | 'failOpen' | 'admitted') => runs.reduce((n, run) => n + run[field], 0);
  const longest = (field: 'workerStallMs' | 'ms') => Math.max(...runs.map((run) => run[field]));
  return {
    primary: total('primary'),
    failOpen: total('failOpen'),
    admitted: total('admitted'),
    workerStallMs: longest('workerStallMs'),
    ms: longest('ms'),
  };
}

async function worker(): Promise<void> {
  const limiter = createClusterLimiter('sliding-log', POLICY, { name: process.env.BURST_NAME as string });
  const calls = Number(process.env.BURST_CALLS);
  const stall = stallProbe();
  const start = performance.now();
  const decisions = await Promise.all(Array.from({ length: calls }, () => limiter.consume('k')));
  const ms = performance.now() - start;
  const run: Run = {
    primary: decisions.filter((d) => d.reason === 'primary').length,
    failOpen: decisions.filter((d) => d.reason === 'fail-open').length,
    admitted: decisions.filter((d) => d.allowed).length,
    workerStallMs: stall(),
    ms,
  };
  process.send?.({ run });
}

await (cluster.isPrimary ? primary() : worker());
