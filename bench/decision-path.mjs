// ns per decision of one in-memory algorithm on one hot key, through the path `ratelab bench`
// uses (`limiter.allow(key)` behind a closure, a virtual clock stepped after each batch of
// 1,000), in CPU time, one fresh process per run. For before/after comparisons of the
// decision path in src/memory and src/algorithms: run both builds alternately, several
// times, and compare with the token bucket's figure in the same runs (the machine's load
// moves both). bench/decision-events.mjs runs it so for the cost of decision events.
//
//   npm run build && node bench/decision-path.mjs sliding-counter [warm-up batches]
//   node bench/decision-path.mjs reference              (the bench's reference bucket)
//   for i in 1 2 3; do node bench/decision-path.mjs sliding-counter; node bench/decision-path.mjs token-bucket; done
//
// Flags: --dist DIR (a build other than ../dist, e.g. an older commit's), --consume (through
// `consume(key, 1).allowed`, the full Decision), --listener (a no-op decision listener added).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const flags = process.argv.slice(2).filter((arg) => arg.startsWith('--'));
const positional = process.argv.slice(2).filter((arg, i, all) => !arg.startsWith('--') && all[i - 1] !== '--dist');
const distAt = process.argv.indexOf('--dist');
const dist =
  distAt > 0 ? pathToFileURL(`${resolve(process.argv[distAt + 1])}/`).href : new URL('../dist/', import.meta.url).href;
const { default: createReferenceBucket } = await import(new URL('bench/reference.js', dist).href);
const { createLimiter } = await import(new URL('memory/limiter.js', dist).href);

const algorithm = positional[0] ?? 'token-bucket';
const warmUp = Number(positional[1] ?? 2000);
const throughConsume = flags.includes('--consume');
const withListener = flags.includes('--listener');
const state = { now: 0 };
// The hot-key workload of `ratelab bench`: 1,000 decisions per 4 ms against 500,000 per s.
const policy = { limit: 500_000, windowMs: 1000 };
const clock = () => state.now;
// `reference`: the bench's inline Map bucket, called as the bench calls it.
const decide = algorithm === 'reference' ? referenceDecide() : limiterDecide();

function referenceDecide() {
  const bucket = createReferenceBucket(policy, { clock });
  return (key, cost) => bucket.consume(key, cost);
}

function limiterDecide() {
  const limiter = createLimiter(algorithm, policy, { clock });
  if (withListener) {
    if (typeof limiter.addDecisionListener !== 'function')
      throw new Error(`${dist}: this build has no decision events`);
    limiter.addDecisionListener(() => {});
  }
  if (throughConsume) return (key, cost) => limiter.consume(key, cost).allowed;
  return (key, cost) => (cost === 1 ? limiter.allow(key) : limiter.consume(key, cost).allowed);
}
const key = 'key:0';

function batch() {
  let admitted = 0;
  for (let i = 0; i < 1000; i++) if (decide(key, 1)) admitted++;
  state.now += 4;
  return admitted;
}

for (let i = 0; i < warmUp; i++) batch();
const perDecision = [];
for (let round = 0; round < 9; round++) {
  const cpu = process.cpuUsage();
  let admitted = 0;
  for (let i = 0; i < 20_000; i++) admitted += batch();
  const used = process.cpuUsage(cpu);
  if (admitted !== 2e7) throw new Error(`${algorithm} denied ${2e7 - admitted} of 2e7: not the workload's outcome`);
  perDecision.push(((used.user + used.system) * 1000) / 2e7);
}
perDecision.sort((a, b) => a - b);
console.log(
  `${algorithm}: ${perDecision[4].toFixed(2)} ns per decision (median of 9 rounds; min ${perDecision[0].toFixed(2)})`,
);
