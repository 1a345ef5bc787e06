// What rateLimitFetch costs a Fetch server, as requests per second through a trivial
// handler with the middleware against without (and against the handler sending the same
// fields itself, or having them set on its response, or taking them from the middleware to
// put in its own response), in the same run (issue 28's goal: >= 0.9x
// on Node). Each figure: a fresh server process (bench/fetch-server.mjs) measured by
// autocannon from this process for DURATION s after a 1 s warm-up, 10 connections. Every mode
// runs once per round, the order rotated each round, and each ratio is the median of the
// rounds' ratios, so load on the machine moves both sides. Node through @hono/node-server;
// with --bun, Bun.serve too (the bun devDependency).
//
//   npm run build && node bench/fetch-middleware.mjs [rounds, default 5] [seconds, default 3] [--bun]
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const args = process.argv.slice(2).filter((arg) => arg !== '--bun');
const rounds = Number(args[0] ?? 5);
const duration = Number(args[1] ?? 3);
const server = fileURLToPath(new URL('fetch-server.mjs', import.meta.url));
const runtimes = [['node', process.execPath]];
if (process.argv.includes('--bun'))
  runtimes.push(['bun', fileURLToPath(new URL('../node_modules/.bin/bun', import.meta.url))]);

/** Starts the server in `mode` under `command`; resolves { url, stop }. */
function start(command, mode) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [server, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.on('error', reject);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (!out.includes('\n')) return;
      const { port } = JSON.parse(out.split('\n')[0]);
      resolve({
        url: `http://127.0.0.1:${port}/`,
        stop: () => new Promise((done) => (child.once('exit', done), child.kill('SIGTERM'))),
      });
    });
  });
}

/** Requests per second (mean) of one fresh server in `mode`, and its CPU µs per request. */
async function measure(command, mode) {
  const { url, stop } = await start(command, mode);
  try {
    await autocannon({ url, connections: 10, duration: 1 });
    await fetch(new URL('/__reset', url));
    const result = await autocannon({ url, connections: 10, duration });
    const stats = await (await fetch(new URL('/__stats', url))).json();
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`${mode}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return { rps: result.requests.average, cpuUs: stats.cpuUs / stats.requests };
  } finally {
    await stop();
  }
}

const MODES = ['bare', 'bare-headers', 'bare-touched', 'limited', 'limited-taken'];
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const [name, command] of runtimes) {
  const figures = Object.fromEntries(MODES.map((mode) => [mode, []]));
  for (let round = 0; round < rounds; round++) {
    // Every mode once per round, the order rotated each round.
    for (let i = 0; i < MODES.length; i++) {
      const mode = MODES[(i + round) % MODES.length];
      figures[mode].push(await measure(command, mode));
    }
  }
  const of = (mode, field) => figures[mode].map((figure) => figure[field]);
  const ratio = (over, under, field) => median(of(over, field).map((value, i) => value / of(under, field)[i]));
  console.log(`${name}, ${rounds} rounds of ${duration} s, medians:`);
  for (const mode of MODES)
    console.log(
      `  ${mode.padEnd(13)} ${median(of(mode, 'rps')).toFixed(0).padStart(7)} requests/s, ${median(of(mode, 'cpuUs')).toFixed(1)} µs server CPU per request`,
    );
  const goal = name === 'node' ? ' (goal >= 0.9)' : '';
  console.log(`  requests/s ratio limited x bare          ${ratio('limited', 'bare', 'rps').toFixed(3)}${goal}`);
  console.log(`  requests/s ratio limited x bare-headers  ${ratio('limited', 'bare-headers', 'rps').toFixed(3)}`);
  console.log(`  requests/s ratio limited x bare-touched  ${ratio('limited', 'bare-touched', 'rps').toFixed(3)}`);
  console.log(`  requests/s ratio limited-taken x bare    ${ratio('limited-taken', 'bare', 'rps').toFixed(3)}${goal}`);
  console.log(
    `  requests/s ratio limited-taken x bare-headers ${ratio('limited-taken', 'bare-headers', 'rps').toFixed(3)}`,
  );
  console.log(`  CPU per request ratio bare x limited     ${ratio('bare', 'limited', 'cpuUs').toFixed(3)}`);
  console.log(`  CPU per request ratio bare x limited-taken ${ratio('bare', 'limited-taken', 'cpuUs').toFixed(3)}`);
}
