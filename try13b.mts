import { parseScenario } from './src/scenario/load-scenario.js';
import { builtinContender } from './src/sim/contender.js';
import { replay } from './src/sim/replay.js';
import { openScenario } from './src/traffic/stream.js';
const [C, L, W, base, cap, think, dur, maxR, ramp] = process.argv.slice(2);
const src = (j: string) => `  - { kind: retry, label: ${j}, keys: ${j}, clients: ${C}, ramp: ${ramp}, think: ${think}, maxRetries: ${maxR}, honourRetryAfter: false, backoff: { base: ${base}, cap: ${cap}, jitter: ${j} } }\n`;
const text = `name: x\ndescription: x\npolicy: { limit: ${L}, window: ${W} }\nduration: ${dur}\nseed: 13\nsources:\n${['none','full','equal','decorrelated'].map(src).join('')}`;
const s = parseScenario(text, 'x');
for (const a of ['sliding-log', 'token-bucket', 'fixed-window'] as const) {
  const r = await replay(builtinContender(a, s.policy), openScenario(s), { limit: s.policy.limit, windowMs: s.policy.windowMs, bucketMs: 1000, originMs: 0 });
  console.log(a.padEnd(14), r.metrics.labels.map((l) => `${l.label}=${l.offered}/${l.admitted} (${(l.offered / Math.max(1, l.admitted)).toFixed(2)})`).join(' '));
}
