// What importing each entry point costs a fresh Node process, and which files under
// node_modules it loads. The goals: `import('ratelab')` (the core) under 30 ms and loading
// no third-party file; `ratelab --help` and `ratelab scenarios` under 150 ms (docs/library.md,
// docs/lab.md).
//
//   npm run build && node bench/import-time.mjs            (15 fresh processes per target)
//   node bench/import-time.mjs --runs 31 --json out.json   (more runs; figures as JSON too)
//   node bench/import-time.mjs --cli                       (the baseline and the CLI runs only)
//
// Each timed run is a fresh `node` process that imports one module and reports the time
// the import took (performance.now() around `await import()` / `require()`). Targets are
// run round-robin so that a noisy neighbour hits all of them alike. The baseline, measured
// in the same run the same way, imports an empty module; the ratio column is a target's
// median process wall time over the baseline's (node's own start-up included in both),
// which is the figure to compare across machines and runs. A separate, untimed run per
// target lists the files it loaded: ESM files through a module.register() resolve hook,
// CommonJS ones from require.cache (Node 20 loads CJS dependencies of ESM through the CJS
// loader, outside the hooks).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from 'simple-statistics';

const root = fileURLToPath(new URL('..', import.meta.url));
const lib = (name) => join(root, 'dist/lib', name);

/** What to import: `kind` is how (ESM import or CJS require); `file` is a path. */
const IMPORTS = [
  { name: 'ratelab (the core: src/index.ts)', kind: 'esm', file: lib('index.js') },
  { name: 'ratelab (require)', kind: 'cjs', file: lib('index.cjs') },
  { name: 'ratelab/tiers', kind: 'esm', file: lib('tiers.js') },
  { name: 'ratelab/redis', kind: 'esm', file: lib('redis.js') },
  { name: 'ratelab/http', kind: 'esm', file: lib('http.js') },
  { name: 'ratelab/http (require)', kind: 'cjs', file: lib('http.cjs') },
  { name: 'ratelab/shared', kind: 'esm', file: lib('shared.js') },
  { name: 'ratelab/lab', kind: 'esm', file: lib('lab.js') },
  { name: 'dist/memory/limiter.js (tsc, per file)', kind: 'esm', file: join(root, 'dist/memory/limiter.js') },
  { name: 'dist/cli/main.js (what the CLI loads)', kind: 'esm', file: join(root, 'dist/cli/main.js') },
  { name: "commander (the CLI's parser alone)", kind: 'esm', file: join(root, 'node_modules/commander/esm.mjs') },
];

/** Whole CLI runs, timed from outside (spawn to exit). */
const COMMANDS = [
  { name: 'ratelab --help', args: [join(root, 'bin/ratelab.js'), '--help'] },
  { name: 'ratelab scenarios', args: [join(root, 'bin/ratelab.js'), 'scenarios'] },
  // The goal: all built-ins replayed (no measuring) in under 2 s on 2 cores.
  { name: 'ratelab compare --no-measure', args: [join(root, 'bin/ratelab.js'), 'compare', '--no-measure'] },
];

function option(name, fallback) {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1];
}
const runs = Number(option('--runs', '15'));
const jsonOut = option('--json', undefined);
if (!Number.isInteger(runs) || runs < 3) {
  console.error('--runs: expected a whole number >= 3');
  process.exit(2);
}

const loadBefore = loadavg()[0];
const work = mkdtempSync(join(tmpdir(), 'ratelab-import-time-'));
const empty = join(work, 'empty.mjs');
writeFileSync(empty, 'export {};\n');
writeFileSync(join(work, 'empty.cjs'), 'module.exports = {};\n');

// Timed children: print the import's duration in ms.
writeFileSync(
  join(work, 'time.mjs'),
  `const t = performance.now();
await import(process.argv[2]);
console.log(performance.now() - t);
`,
);
writeFileSync(
  join(work, 'time.cjs'),
  `const t = performance.now();
require(process.argv[2]);
console.log(performance.now() - t);
`,
);

// Listing children: every file loaded, as paths, one per line.
writeFileSync(
  join(work, 'hook.mjs'),
  `let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (result.url.startsWith('file:')) port.postMessage(result.url);
  return result;
}
`,
);
writeFileSync(
  join(work, 'list.mjs'),
  `import { register, createRequire } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
const { port1, port2 } = new MessageChannel();
const seen = new Set();
port1.on('message', (url) => seen.add(fileURLToPath(url)));
register(new URL('./hook.mjs', import.meta.url), { data: { port: port2 }, transferList: [port2] });
const [kind, file] = process.argv.slice(2);
const require = createRequire(import.meta.url);
if (kind === 'cjs') require(file); else await import(file);
await new Promise((done) => setTimeout(done, 100));
for (const path of Object.keys(require.cache)) seen.add(path);
port1.close();
console.log([...seen].join('\\n'));
`,
);

function node(args) {
  const started = performance.now();
  const child = spawnSync(process.execPath, args, {
    encoding: 'utf8',
    cwd: root,
    env: { ...process.env, NO_COLOR: '1' },
  });
  const wallMs = performance.now() - started;
  if (child.status !== 0) throw new Error(`node ${args.join(' ')} failed (${child.status}):\n${child.stderr}`);
  return { wallMs, stdout: child.stdout };
}

const baseline = { name: 'baseline: empty module', kind: 'esm', file: empty };
const targets = process.argv.includes('--cli') ? [baseline] : [baseline, ...IMPORTS];
const samples = new Map([...targets, ...COMMANDS].map((t) => [t.name, { importMs: [], wallMs: [] }]));

for (let round = 0; round < runs; round++) {
  for (const target of targets) {
    const { wallMs, stdout } = node([
      join(work, target.kind === 'cjs' ? 'time.cjs' : 'time.mjs'),
      target.kind === 'cjs' ? target.file : pathToFileURL(target.file).href,
    ]);
    samples.get(target.name).importMs.push(Number(stdout.trim()));
    samples.get(target.name).wallMs.push(wallMs);
  }
  for (const command of COMMANDS) samples.get(command.name).wallMs.push(node(command.args).wallMs);
  process.stderr.write(`\rround ${round + 1}/${runs}`);
}
process.stderr.write('\n');

/** Package names (node_modules/<pkg>) among the files a target loads, with file counts. */
function loadedPackages(target) {
  const files = node([
    join(work, 'list.mjs'),
    target.kind,
    target.kind === 'cjs' ? target.file : pathToFileURL(target.file).href,
  ])
    .stdout.split('\n')
    .filter(Boolean);
  const packages = new Map();
  for (const file of files) {
    const match = /node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(relative(root, file));
    if (match) packages.set(match[1], (packages.get(match[1]) ?? 0) + 1);
  }
  return { files: files.length, packages: Object.fromEntries(packages) };
}

const baseWall = median(samples.get(baseline.name).wallMs);
const rows = [...targets, ...COMMANDS].map((target) => {
  const s = samples.get(target.name);
  const row = { name: target.name, wallMs: median(s.wallMs), ratio: median(s.wallMs) / baseWall };
  if (s.importMs.length > 0) Object.assign(row, { importMs: median(s.importMs), ...loadedPackages(target) });
  return row;
});
rmSync(work, { recursive: true, force: true });

const fixed = (n, digits = 1) => (n === undefined ? '' : n.toFixed(digits));
const loadAfter = loadavg()[0];
console.log(
  `node ${process.version}, ${runs} fresh processes per target, medians; ratio = process wall time / baseline's (${fixed(baseWall)} ms)`,
);
console.log(`load average (1 min) ${fixed(loadBefore, 2)} before, ${fixed(loadAfter, 2)} after`);
console.log(
  [
    'target'.padEnd(38),
    'import ms'.padStart(9),
    'process ms'.padStart(10),
    'ratio'.padStart(6),
    '  node_modules packages loaded (files)',
  ].join(' '),
);
for (const row of rows) {
  const packages =
    row.packages === undefined
      ? ''
      : Object.entries(row.packages)
          .map(([name, n]) => `${name}(${n})`)
          .join(' ') || 'none';
  console.log(
    [
      row.name.padEnd(38),
      fixed(row.importMs).padStart(9),
      fixed(row.wallMs).padStart(10),
      fixed(row.ratio, 2).padStart(6),
      ` ${packages}`,
    ].join(' '),
  );
}
if (jsonOut !== undefined)
  writeFileSync(
    jsonOut,
    `${JSON.stringify({ node: process.version, runs, load: [loadBefore, loadAfter], rows }, null, 2)}\n`,
  );
