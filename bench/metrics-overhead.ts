// What ratelab/metrics costs the in-memory limiter, as ratios within one run (the machine's
// load moves the raw rates): decisions/s of a limiter counted by registerMetrics (a
// prom-client registry, scraped between rounds) and by registerOtelMetrics (an SDK meter
// exporting to memory, collected between rounds) over the same limiter with no listener,
// and, for comparison, with a listener that does nothing (an event per decision).
// The goal: metrics on >= 0.85x of metrics off, on one hot key and on 1e4 keys, through
// `allow` (the path that builds no Decision without a listener: the worst case) and `consume`.
// Rounds alternate the three, so drift hits all alike; each figure is the median of the
// rounds. Exits 1 when a goal is missed.
//
//   npx tsx bench/metrics-overhead.ts [--rounds 15] [--calls 1000000]
import { median } from 'simple-statistics';
import { Registry } from 'prom-client';
import { createLimiter, type RateLimiter } from '../src/index.js';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { registerMetrics, registerOtelMetrics } from '../src/observability/index.js';
import { numberArg } from './redis-support.js';

const ROUNDS = numberArg('--rounds', 15);
const CALLS = numberArg('--calls', 1_000_000);
/** The goal: decisions/s with metrics on over off. */
const GOAL = 0.85;
// Nothing is ever denied: the rates compare the same work.
const ROOMY = { limit: 2 ** 31, windowMs: 1000 };

type Mode = 'off' | 'listener' | 'metrics' | 'otel';
type Call = 'allow' | 'consume';

const registry = new Registry();
const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
// Exports when told (forceFlush, between rounds), never on its own.
const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 2 ** 31 - 1 });
const meter = new MeterProvider({ readers: [reader] }).getMeter('ratelab-bench');

function limiterFor(mode: Mode, label: string): RateLimiter {
  const limiter = createLimiter('token-bucket', ROOMY, { name: 'bench' });
  if (mode === 'listener') limiter.addDecisionListener(() => undefined);
  if (mode === 'metrics') registerMetrics(limiter, { registry, name: label });
  if (mode === 'otel') registerOtelMetrics(limiter, { meter, name: label });
  return limiter;
}

/** Decisions/s of CALLS calls over `keys` keys (their names built beforehand). */
function rate(limiter: RateLimiter, call: Call, keys: readonly string[]): number {
  const mask = keys.length - 1;
  let admitted = 0;
  const start = performance.now();
  if (call === 'allow') for (let i = 0; i < CALLS; i++) admitted += limiter.allow(keys[i & mask] as string) ? 1 : 0;
  else for (let i = 0; i < CALLS; i++) admitted += limiter.consume(keys[i & mask] as string).allowed ? 1 : 0;
  const seconds = (performance.now() - start) / 1000;
  if (admitted !== CALLS)
    throw new Error(`a decision was denied (${admitted} of ${CALLS}): the rates would not compare`);
  return CALLS / seconds;
}

const WORKLOADS = { 'hot-key': 1, 'keys-1e4': 16_384 } as const;
const MODES: Mode[] = ['off', 'listener', 'metrics', 'otel'];
const CALLS_OF: Call[] = ['allow', 'consume'];

let missed = false;
for (const [workload, count] of Object.entries(WORKLOADS)) {
  const keys = Array.from({ length: count }, (_, i) => `user-${i}`);
  for (const call of CALLS_OF) {
    const limiters = Object.fromEntries(MODES.map((m) => [m, limiterFor(m, `${workload}-${call}`)])) as Record<
      Mode,
      RateLimiter
    >;
    const rates: Record<Mode, number[]> = { off: [], listener: [], metrics: [], otel: [] };
    for (let r = 0; r < ROUNDS; r++) {
      // Rotate the order, so none always runs first (or last) in a round.
      for (let m = 0; m < MODES.length; m++) {
        const mode = MODES[(m + r) % MODES.length] as Mode;
        rates[mode].push(rate(limiters[mode], call, keys));
      }
      // A scrape and an export between rounds, as a server would.
      await registry.metrics();
      exporter.reset();
      await reader.forceFlush();
    }
    const off = median(rates.off);
    const prometheus = median(rates.metrics) / off;
    const otel = median(rates.otel) / off;
    const listener = median(rates.listener) / off;
    const met = prometheus >= GOAL && otel >= GOAL;
    missed ||= !met;
    console.log(
      `${`${workload} ${call}`.padEnd(18)} off ${(off / 1e6).toFixed(1)}M/s  listener ${listener.toFixed(2)}x  prometheus ${prometheus.toFixed(2)}x  otel ${otel.toFixed(2)}x  (goal >= ${GOAL}: ${met ? 'met' : 'MISSED'})`,
    );
  }
}
process.exitCode = missed ? 1 : 0;
