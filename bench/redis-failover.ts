// A master killed (SIGKILL) mid-run, and what four deciding processes (two ioredis, two
// node-redis, on the same 6 keys, fixed window, limit 3000 each, half of it spent before
// the kill, failMode 'closed', timeoutMs 100) see until the promoted replica decides for
// them: through Sentinels (a master, a replica, three Sentinels; down-after 1000 ms,
// failover-timeout 3000 ms), and in a Cluster of 3 masters with a replica each
// (cluster-node-timeout 1000 ms). A fresh group or cluster per run. Per run: when the
// replica was promoted, how long calls took the fail mode, when each process decided
// through Redis again, the slowest call, and what Redis admitted beyond the limit because
// asynchronous replication had not carried the last admissions to the replica.
// The same runs as test/redis/failover.test.ts, which asserts the behaviour.
//
//   npx tsx bench/redis-failover.ts [--runs 3]
import os from 'node:os';
import { failoverFigures, type FailoverFigures } from '../test/support/failover-run.js';
import {
  FAILOVER_KEYS,
  FAILOVER_LIMIT,
  FAILOVER_TIMEOUT_MS,
  failoverInCluster,
  failoverThroughSentinel,
  type Failover,
} from '../test/support/failover-targets.js';
import { startRedisCluster } from '../test/support/redis-server.js';
import { startSentinelGroup } from '../test/support/redis-sentinel.js';
import { format, numberArg } from './redis-support.js';

const RUNS = numberArg('--runs', 3);

const SETUPS: Array<[string, () => Promise<Failover>]> = [
  [
    'Sentinel',
    async () => {
      const group = await startSentinelGroup({ downAfterMs: 1000, failoverTimeoutMs: 3000 });
      try {
        return await failoverThroughSentinel(group, 'bench-failover:');
      } finally {
        await group.stop();
      }
    },
  ],
  [
    'Cluster',
    async () => {
      const cluster = await startRedisCluster(3, { replicas: 1, nodeTimeoutMs: 1000 });
      try {
        return await failoverInCluster(cluster, 'bench-failover:');
      } finally {
        await cluster.stop();
      }
    },
  ],
];

const ms = (n: number) => format(n).padStart(6);
console.log(
  `load average ${os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(
      ' ',
    )}; timeoutMs ${FAILOVER_TIMEOUT_MS}; ${FAILOVER_KEYS.length} keys x limit ${FAILOVER_LIMIT}; 4 processes (2 ioredis, 2 node-redis)`,
);
console.log(
  'setup     run  promoted  fail mode  back: ioredis    node-redis   slowest  fail-mode calls  before kill  admitted by Redis  beyond limit  lost writes  admitted in last 100 ms',
);
for (const [label, setup] of SETUPS) {
  for (let run = 1; run <= RUNS; run++) {
    const f: FailoverFigures = failoverFigures(await setup(), FAILOVER_KEYS.length, FAILOVER_LIMIT);
    const [a, b, c, d] = f.recoveryMsByProcess.map(ms);
    console.log(
      `${label.padEnd(9)} ${String(run).padStart(3)}  ${ms(f.promotionMs)} ms ${ms(f.failModeMs)} ms  ${a} ${b}  ${c} ${d}  ${f.slowestMs.toFixed(0).padStart(4)} ms  ${format(f.failModeCalls).padStart(15)}  ${String(f.failModeBeforeKill).padStart(11)}  ${format(f.admittedByRedis).padStart(17)}  ${String(f.overAdmitted).padStart(12)}  ${String(f.lostWrites).padStart(11)}  ${format(f.admittedLast100msBeforeKill).padStart(23)}`,
    );
  }
}
console.log('ms from the kill; "back": each process\'s first Redis decision after its last fail-mode one.');
