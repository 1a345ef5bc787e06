// One racing process of the atomicity test. For each contender named on the command line:
// prints "ready", waits for a "go" line on stdin (so all processes race at once), races
// on one key, prints the number admitted.
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import { race, type Contender } from '../../src/race/race.js';

const [url, limit, requests, inFlight, prefix, ...contenders] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  ...Contender[],
];
const redis = new Redis(url);
await redis.ping();
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
for (const contender of contenders) {
  process.stdout.write('ready\n');
  await lines.next();
  const admitted = await race(redis, contender, {
    key: 'one-key',
    limit: Number(limit),
    requests: Number(requests),
    inFlight: Number(inFlight),
    prefix: `${prefix}${contender}:`,
  });
  process.stdout.write(`${admitted}\n`);
}
redis.disconnect();
process.stdin.destroy();
