// What decision events cost the in-memory limiter's decision path, each figure in ns per
// decision from bench/decision-path.mjs (one fresh process per figure, CPU time, hot key):
// - "no listener x before": this build without a listener against BEFORE, a build of the
//   commit before decision events, through `allow` and through `consume` (the goal: within 3%);
// - "no-op listener x none": this build with a listener that does nothing against without.
// The runs alternate (every configuration once per round, the order rotated each round), and
// each ratio is the median of the rounds' ratios, so the machine's load moves both sides.
//
//   git archive <commit before> | tar -x -C .before && ln -s "$PWD/node_modules" .before/ && (cd .before && npm run build)
//   npm run build && node bench/decision-events.mjs .before/dist [rounds, default 7] [algorithm, default token-bucket]
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const before = process.argv[2];
const rounds = Number(process.argv[3] ?? 7);
const algorithm = process.argv[4] ?? 'token-bucket';
if (!before || !existsSync(`${before}/memory/limiter.js`))
  throw new Error(
    'usage: node bench/decision-events.mjs BEFORE_DIST [rounds] [algorithm] (BEFORE_DIST/memory/limiter.js must exist)',
  );
const script = fileURLToPath(new URL('decision-path.mjs', import.meta.url));

const configs = [
  { name: 'allow, before', args: ['--dist', before] },
  { name: 'allow, no listener', args: [] },
  { name: 'allow, no-op listener', args: ['--listener'] },
  { name: 'consume, before', args: ['--dist', before, '--consume'] },
  { name: 'consume, no listener', args: ['--consume'] },
  { name: 'consume, no-op listener', args: ['--consume', '--listener'] },
];

const figures = new Map(configs.map((config) => [config.name, []]));
for (let round = 0; round < rounds; round++) {
  for (let i = 0; i < configs.length; i++) {
    const config = configs[(i + round) % configs.length];
    const out = execFileSync(process.execPath, [script, algorithm, ...config.args], { encoding: 'utf8' });
    const ns = Number(/: ([\d.]+) ns per decision/.exec(out)?.[1]);
    if (!Number.isFinite(ns)) throw new Error(`${config.name}: no figure in ${JSON.stringify(out)}`);
    figures.get(config.name).push(ns);
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ratio = (over, under) => median(figures.get(over).map((value, i) => value / figures.get(under)[i]));
console.log(`${algorithm}, ${rounds} rounds, ns per decision (median):`);
for (const [name, values] of figures) console.log(`  ${name.padEnd(24)} ${median(values).toFixed(2)}`);
console.log("time ratios (median of the rounds' ratios):");
for (const call of ['allow', 'consume']) {
  console.log(
    `  ${call}: no listener x before     ${ratio(`${call}, no listener`, `${call}, before`).toFixed(3)} (goal <= 1.03)`,
  );
  console.log(
    `  ${call}: no-op listener x none    ${ratio(`${call}, no-op listener`, `${call}, no listener`).toFixed(3)}`,
  );
}
