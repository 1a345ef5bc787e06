// One-off keys against a real `ratelab serve` process: one request from each of 9,000
// one-off API keys to a sliding log of 100000 per minute, printing the server's RSS after
// 1,000, 4,000 and 9,000 keys. The sliding log's memory must follow the timestamps its keys
// hold, not keys x limit (figures, then and now, in docs/bench.md); it stops past 3 GB.
// Linux only (reads /proc). Build first: `npm run build`.
//
//   node bench/sliding-log-serve-rss.mjs [checkout directory, default .] [counts, default 1000,4000,9000]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';

const dir = process.argv[2] ?? '.';
const counts = [0, ...(process.argv[3] ?? '1000,4000,9000').split(',').map(Number)];
const args = [
  'serve',
  '--algorithm',
  'sliding-log',
  '--limit',
  '100000',
  '--window',
  '1m',
  '--port',
  '0',
  '--trust-api-keys',
  '--quiet',
];
const child = spawn(process.execPath, [`${dir}/bin/ratelab.js`, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
let said = '';
const port = await new Promise((resolve) =>
  child.stderr.on('data', (data) => {
    said += data;
    const match = /127\.0\.0\.1:(\d+)/.exec(said);
    if (match) resolve(Number(match[1]));
  }),
);
const rssMiB = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) / 1024;
const agent = new http.Agent({ keepAlive: true, maxSockets: 20 });
const request = (i) =>
  new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/', agent, headers: { 'x-api-key': `one-off-${i}` } }, (res) =>
        res.resume().on('end', resolve),
      )
      .on('error', reject);
  });
for (let c = 1; c < counts.length; c++) {
  const pending = [];
  for (let i = counts[c - 1]; i < counts[c]; i++) pending.push(request(i));
  await Promise.all(pending);
  console.log(`after ${counts[c]} one-off keys: RSS ${rssMiB().toFixed(0)} MiB`);
  if (rssMiB() > 3000) break;
}
agent.destroy();
child.kill('SIGINT');
