import { parseScenario } from './src/scenario/load-scenario.js';
import { simulateDistributed } from './src/sim/distributed/simulate.js';
const sc = parseScenario(`name: t\ndescription: x\npolicy: { limit: 100, window: 1s }\nduration: 31s\nseed: 1\nsources:\n  - kind: burst\n    keys: k\n    at: 0\n    count: 400\n    spread: 200ms\n    every: 1507ms\n    times: 20\n`);
const R = 2;
for (const n of [1,2,4,8]) { const rr = await simulateDistributed(sc, [10, 25,50,100].map(syncMs => ({ nodes: n, balance: 'even', algorithm: 'sliding-log', rttMs: 1, timeoutMs: 50, syncMs, strategy: 'sync', failMode: 'open' } as const)));
 console.log(n, rr.rows.map(x => { const ex = (x.worstWindowRatio-1)*100; const b = (n-1)/n*R*(x.syncMs!+1); return `${ex.toFixed(0)}/${b.toFixed(1)}`; }).join(' ')); }
