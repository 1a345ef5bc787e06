// Do `ratelab compare`'s speed figures agree with `ratelab bench`, and hold from run to run?
// And how long does `ratelab compare` take, with and without measuring?
//
//   npm run build && npx tsx bench/compare-speed-agreement.ts [--runs 3] [--limiter examples/my-limiter.mjs]
//
// Runs the built CLI (dist/), as a user would:
// 1. `compare --limiter MODULE --json` over all built-in scenarios, --runs times: each row's
//    speedRatio (x the reference bucket measured in the same rounds) and its spread over the
//    runs (largest / smallest);
// 2. `bench --quick --no-peers --limiter MODULE` once: x reference on one hot key and on 1e4
//    keys in turn;
// 3. side by side: every subject's ratio to the token bucket in compare (per scenario) and
//    in bench, and whether the module ranks against the token bucket the same way; which
//    pairs of subjects compare's steady-under orders differently from bench's workloads;
// 4. wall time of the default `compare` (all built-ins, 5 algorithms) and of
//    `compare --no-measure`, --runs times each, with the load average beside them (the
//    machine is shared: a load above the core count stretches wall time, not CPU time).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, limiter: { type: 'string', default: 'examples/my-limiter.mjs' } },
});
const RUNS = Number(values.runs);
const MODULE = values.limiter as string;
const MODULE_NAME = MODULE.split('/').pop() as string;
const CLI = 'bin/ratelab.js';
const dir = mkdtempSync(join(tmpdir(), 'ratelab-agreement-'));

interface Row {
  scenario: string;
  algorithm: string;
  opsPerSec: number | null;
  speedRatio: number | null;
}

function ratelab(args: string[]): Promise<{ ms: number; load: number }> {
  const load = loadavg()[0] as number;
  const start = performance.now();
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { maxBuffer: 64 << 20, env: { ...process.env, NO_COLOR: '1' } },
      (error, _out, err) => {
        if (error) reject(new Error(`ratelab ${args.join(' ')}: ${err || error.message}`));
        else resolve({ ms: performance.now() - start, load });
      },
    );
  });
}

const fmt = (x: number | undefined, digits = 2) => (x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(digits));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

// 1. compare, --runs times.
const runs: Row[][] = [];
const compareTimes: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const file = join(dir, `compare-${i}.json`);
  const { ms } = await ratelab(['compare', '--limiter', MODULE, '--no-chart', '--json', file]);
  compareTimes.push(ms);
  runs.push((JSON.parse(readFileSync(file, 'utf8')) as { rows: Row[] }).rows);
  process.stderr.write(`compare --limiter run ${i + 1}/${RUNS}: ${(ms / 1000).toFixed(1)} s\n`);
}

// 2. bench.
const benchFile = join(dir, 'bench.json');
await ratelab(['bench', '--quick', '--no-peers', '--memory-keys', '0', '--limiter', MODULE, '--json', benchFile]);
process.stderr.write('bench --quick done\n');
const bench = JSON.parse(readFileSync(benchFile, 'utf8')) as {
  figures: { subject: string; workload: string; ratio: number; unit: string }[];
};
const benchRatio = (subject: string, workload: string) =>
  bench.figures.find((f) => f.unit === 'decisions/s' && f.workload === workload && f.subject === subject)?.ratio;
const benchSubject = (name: string) => (name === MODULE_NAME ? `module:${MODULE_NAME}` : name);

// 3. Side by side.
const scenarios = [...new Set(runs[0]?.map((r) => r.scenario))];
const subjects = [...new Set(runs[0]?.map((r) => r.algorithm))];
const ratioOf = (run: Row[], scenario: string, subject: string) =>
  run.find((r) => r.scenario === scenario && r.algorithm === subject)?.speedRatio ?? NaN;
const medianRatio = (scenario: string, subject: string) => median(runs.map((run) => ratioOf(run, scenario, subject)));

console.log(`compare: x reference (median of ${RUNS} runs), and spread over the runs (largest / smallest)`);
console.log(['scenario'.padEnd(22), ...subjects.map((s) => s.padStart(16))].join(''));
let worstSpread = 1;
const spreads: number[] = [];
for (const scenario of scenarios) {
  const cells = subjects.map((subject) => {
    const ratios = runs.map((run) => ratioOf(run, scenario, subject));
    const spread = Math.max(...ratios) / Math.min(...ratios);
    spreads.push(spread);
    worstSpread = Math.max(worstSpread, spread);
    return `${fmt(median(ratios))} (${fmt(spread)})`.padStart(16);
  });
  console.log([scenario.padEnd(22), ...cells].join(''));
}
console.log(`spread over ${RUNS} runs: median ${fmt(median(spreads))}, worst ${fmt(worstSpread)} (1.25 = 25%)`);

console.log('\nbench --quick: x reference');
for (const workload of ['hot-key', 'keys-1e4']) {
  console.log(
    [workload.padEnd(22), ...subjects.map((s) => fmt(benchRatio(benchSubject(s), workload)).padStart(16))].join(''),
  );
}

// Within 25% of each other counts as a tie: that is the run-to-run spread compare aims at.
console.log(`\n${MODULE_NAME} / token-bucket (below 1: the module is slower; 0.80-1.25: a tie within noise)`);
const verdicts: string[] = [];
const verdict = (versus: number) => (versus < 0.8 ? 'slower' : versus > 1.25 ? 'faster' : 'tie');
for (const workload of ['hot-key', 'keys-1e4']) {
  const versus =
    (benchRatio(benchSubject(MODULE_NAME), workload) ?? NaN) / (benchRatio('token-bucket', workload) ?? NaN);
  console.log(`  bench ${workload.padEnd(24)} ${fmt(versus)}  ${verdict(versus)}`);
  verdicts.push(verdict(versus));
}
for (const scenario of scenarios) {
  const versus = medianRatio(scenario, MODULE_NAME) / medianRatio(scenario, 'token-bucket');
  console.log(`  compare ${scenario.padEnd(22)} ${fmt(versus)}  ${verdict(versus)}`);
  verdicts.push(verdict(versus));
}
const decided = new Set(verdicts.filter((v) => v !== 'tie'));
console.log(
  `  the module ranks against the token bucket the same way wherever it is not a tie: ${decided.size <= 1 ? 'yes' : 'NO'} (${verdicts.filter((v) => v === 'tie').length} ties)`,
);

// Order of all subjects: compare's steady-under (one key, all admitted, limit 100) against
// bench's hot-key (one key, all admitted, but limit 500,000: a sliding log then holds
// 500,000 times per key) and keys-1e4 (limit 10). A pair counts as inverted when the two
// disagree on which is faster; as inverted beyond noise when each says so by over 25%.
const order = (ratio: (s: string) => number) => [...subjects].sort((a, b) => ratio(b) - ratio(a));
const inCompare = (s: string) => medianRatio('steady-under', s);
console.log(`\nfastest first, compare steady-under: ${order(inCompare).join(' > ')}`);
for (const workload of ['hot-key', 'keys-1e4']) {
  const inBench = (s: string) => benchRatio(benchSubject(s), workload) ?? NaN;
  let inverted = 0;
  let beyondNoise = 0;
  let pairs = 0;
  for (let i = 0; i < subjects.length; i++) {
    for (let j = i + 1; j < subjects.length; j++) {
      const [a, b] = [subjects[i] as string, subjects[j] as string];
      const here = inCompare(a) / inCompare(b);
      const there = inBench(a) / inBench(b);
      pairs += 1;
      if (here > 1 !== there > 1) inverted += 1;
      if ((here > 1.25 && there < 1 / 1.25) || (here < 1 / 1.25 && there > 1.25)) beyondNoise += 1;
    }
  }
  console.log(`fastest first, bench ${workload.padEnd(15)}${order(inBench).join(' > ')}`);
  console.log(`  pairs in a different order: ${inverted} of ${pairs}; beyond noise (each by over 25%): ${beyondNoise}`);
}

// 4. Run time of the default run.
const measured: { ms: number; load: number }[] = [];
const unmeasured: { ms: number; load: number }[] = [];
for (let i = 0; i < RUNS; i++) {
  measured.push(await ratelab(['compare', '--json', join(dir, 'default.json')]));
  unmeasured.push(await ratelab(['compare', '--no-measure', '--json', join(dir, 'plain.json')]));
}
const show = (label: string, times: { ms: number; load: number }[]) =>
  console.log(
    `${label.padEnd(30)} ${times.map((t) => `${(t.ms / 1000).toFixed(2)} s (load ${t.load.toFixed(1)})`).join(', ')}; median ${(median(times.map((t) => t.ms)) / 1000).toFixed(2)} s`,
  );
console.log(`\nwall time, ${cpus().length} cores`);
show('compare', measured);
show('compare --no-measure', unmeasured);
show(
  `compare --limiter ${MODULE_NAME}`,
  compareTimes.map((ms) => ({ ms, load: NaN })),
);
rmSync(dir, { recursive: true, force: true });
