// The adaptive client's throughput goal (issue 29): 20 concurrent callers sharing one
// adaptiveThrottle with no prior knowledge, against `ratelab serve` token-bucket 20/s burst 20
// (the installed CLI, a child process on a free loopback port). Reports, in the same run:
// - throughput after the first 2 s as a ratio of the limit (the goal: >= 0.9x), and
// - 429s as a share of all requests (the goal: < 5%);
// beside a naive client (20 workers, each retrying a 429 at once) on a fresh server, and the
// adaptive client's stats() at the end.
//
//   npm run build && node bench/adaptive-client.mjs [seconds, default 10]
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { adaptiveThrottle } from '../dist/lib/index.js';

const seconds = Number(process.argv[2] ?? 10);
const LIMIT = 20;
const CALLERS = 20;
const WARMUP_MS = 2000;
const cli = fileURLToPath(new URL('../bin/ratelab.js', import.meta.url));

/** A free loopback port. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** `ratelab serve` on a free port, resolved once it listens; `stop()` ends it. */
async function startServe() {
  const port = await freePort();
  const args = [cli, 'serve', '--host', '127.0.0.1', '--port', String(port), '--algorithm', 'token-bucket'];
  const child = spawn(
    process.execPath,
    [...args, '--limit', String(LIMIT), '--window', '1s', '--burst', String(LIMIT), '--quiet'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  await new Promise((resolve, reject) => {
    let out = '';
    const read = (chunk) => {
      out += chunk;
      if (out.includes('listening on')) resolve();
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/`,
    stop: () => new Promise((resolve) => (child.once('exit', resolve), child.kill('SIGTERM'))),
  };
}

/** Runs `CALLERS` loops of `send` for `seconds`; returns every request's send time (ms from start) and status. */
async function drive(send) {
  const start = performance.now();
  const shots = [];
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (performance.now() < end) await send(shots, start);
    }),
  );
  return shots;
}

function report(name, shots) {
  const late = shots.filter((s) => s.at >= WARMUP_MS && s.status === 200).length;
  const throughput = late / ((seconds * 1000 - WARMUP_MS) / 1000);
  const throttled = shots.filter((s) => s.status === 429).length;
  console.log(
    `${name.padEnd(9)} ${String(shots.length).padStart(6)} requests, ${(throughput / LIMIT).toFixed(2)}x the limit after ${WARMUP_MS / 1000} s (${throughput.toFixed(1)}/s), 429s ${((100 * throttled) / shots.length).toFixed(1)}% (${throttled})`,
  );
}

const record = async (shots, start, url, fetchLike) => {
  const at = performance.now() - start;
  const response = await fetchLike(url);
  await response.arrayBuffer();
  shots.push({ at, status: response.status });
  return response;
};

let server = await startServe();
const client = adaptiveThrottle((url) => fetch(url), { maxWaitMs: 60_000, retry: 'never' });
const adaptive = await drive((shots, start) => record(shots, start, server.url, client));
await server.stop();

server = await startServe();
const naive = await drive((shots, start) => record(shots, start, server.url, fetch));
await server.stop();

console.log(`${CALLERS} callers, ${seconds} s, ratelab serve token-bucket ${LIMIT}/s burst ${LIMIT}:`);
report('adaptive', adaptive);
report('naive', naive);
console.log('adaptive stats():', JSON.stringify(client.stats(), null, 2));
