// What parallelism does this machine give worker threads? Each thread spins on private
// arithmetic for 1 s (nothing shared, no allocation); prints the total work for 1, 2 and 4
// threads and its ratio to 1 thread. The ceiling for any thread-scaling figure, such as
// `ratelab bench --threads 1,2,4` (docs/shared.md). Run: node bench/threads-ceiling.mjs
import { Worker } from 'node:worker_threads';
import { cpus, loadavg } from 'node:os';

const code = `const { parentPort } = require('node:worker_threads');
parentPort.on('message', (ms) => {
  const end = performance.now() + ms;
  let n = 0;
  while (performance.now() < end) for (let i = 0; i < 10000; i++) n += i & 1;
  parentPort.postMessage(n);
});`;

async function work(threads) {
  const workers = Array.from({ length: threads }, () => new Worker(code, { eval: true }));
  const done = await Promise.all(workers.map((w) => new Promise((ok) => { w.once('message', ok); w.postMessage(1000); })));
  await Promise.all(workers.map((w) => w.terminate()));
  return done.reduce((a, b) => a + b, 0);
}

console.log(`${cpus().length} cores, load average ${loadavg()[0].toFixed(2)}`);
const one = await work(1);
for (const threads of [1, 2, 4]) {
  const total = threads === 1 ? one : await work(threads);
  console.log(`${threads} thread(s): ${(total / 1e6).toFixed(0)}M steps, ${(total / one).toFixed(2)}x one thread`);
}
