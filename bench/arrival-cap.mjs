// How many arrivals the lab replays per second of CPU, to choose and check the default
// arrival cap (DEFAULT_MAX_ARRIVALS, `--max-arrivals`: about a minute of replaying).
//
//   npm run build && node bench/arrival-cap.mjs                 (5,000,000 arrivals per run)
//   node bench/arrival-cap.mjs --arrivals 20000000              (the cap itself)
//
// Runs the built CLI in fresh processes on generated scenarios of that many arrivals: one
// key, steady; 10,000 uniform keys, Poisson; through `compare --no-measure` (five
// algorithms in lockstep) and `distributed` (three designs, a replay each). Prints CPU
// time (user + system of the child, from getrusage), wall time and the load average; the
// CPU figure is the one to read on a shared machine. Scales linearly: the replay keeps
// memory O(keys + arrivals within one window).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin/ratelab.js');
const args = process.argv.slice(2);
const arrivals = Number(args[args.indexOf('--arrivals') + 1] ?? NaN) || 5_000_000;
const seconds = 100;
const perMs = arrivals / (seconds * 1000);

const work = mkdtempSync(join(tmpdir(), 'ratelab-arrival-cap-'));
const scenarios = {
  'one key, steady': `{ kind: steady, rate: ${perMs}/ms }`,
  '10,000 keys, Poisson': `{ kind: poisson, rate: ${perMs}/ms, keys: { count: 10000 } }`,
};
const commands = {
  'compare --no-measure': ['compare', '--no-measure', '--no-chart'],
  distributed: ['distributed', '--no-chart'],
};

console.log(
  `${arrivals.toLocaleString('en-US')} arrivals per run; load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
console.log('scenario               command               cpu s   wall s  arrivals per cpu s  cpu s per 20M');
try {
  for (const [name, source] of Object.entries(scenarios)) {
    const file = join(work, `${name.replace(/\W+/g, '-')}.yaml`);
    writeFileSync(
      file,
      [
        'name: cap',
        'description: arrival cap',
        'policy: { limit: 100, window: 1s }',
        `duration: ${seconds}s`,
        'seed: 1',
        'sources:',
        `  - ${source}`,
        '',
      ].join('\n'),
    );
    for (const [label, command] of Object.entries(commands)) {
      const started = performance.now();
      const child = spawnSync(
        '/usr/bin/time',
        ['-f', '%U %S', process.execPath, bin, ...command, file, '--max-arrivals', String(arrivals)],
        { encoding: 'utf8', cwd: root },
      );
      const wall = (performance.now() - started) / 1000;
      if (child.status !== 0) throw new Error(`${label} on ${name}: exit ${child.status}: ${child.stderr}`);
      const [user, system] = child.stderr.trim().split('\n').at(-1).split(' ').map(Number);
      const cpu = user + system;
      console.log(
        `${name.padEnd(22)} ${label.padEnd(20)} ${cpu.toFixed(1).padStart(6)} ${wall.toFixed(1).padStart(8)} ${Math.round(
          arrivals / cpu,
        )
          .toLocaleString('en-US')
          .padStart(19)} ${((cpu * 20_000_000) / arrivals).toFixed(0).padStart(14)}`,
      );
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(
  `load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
