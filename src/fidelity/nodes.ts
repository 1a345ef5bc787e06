import type { Clock } from '../core/clock.js';
import { createLimiter, type RateLimiter } from '../memory/limiter.js';
import { parseScenario } from '../scenario/load-scenario.js';
import type { Scenario } from '../scenario/scenario.js';
import type { Contender, Decider } from '../sim/contender.js';
import { simulateDistributed } from '../sim/distributed/simulate.js';
import { replay } from '../sim/replay.js';
import { scenarioWorkload } from '../sim/workload.js';
import { fixed, judged, type FidelityCase, type FidelityCheck } from './case.js';

const NODES = 3;

/** One API key at 5x its limit: enough that N nodes each enforcing the full limit all fill. */
function overloadScenario(seed: number): Scenario {
  return parseScenario(
    `name: fidelity-nodes-overload\ndescription: one key at 5x its limit, round robin over ${NODES} nodes\npolicy: { limit: 100, window: 1s }\nduration: 20s\nseed: ${seed}\nbucket: 1s\nsources:\n  - kind: poisson\n    keys: api-key\n    rate: 500/s\n`,
    'fidelity nodes scenario',
  );
}

/** One API key at 80% of its limit: the global oracle admits (nearly) all of it. */
function underScenario(seed: number): Scenario {
  return parseScenario(
    `name: fidelity-nodes-under\ndescription: one key at 80% of its limit\npolicy: { limit: 100, window: 1s }\nduration: 30s\nseed: ${seed}\nbucket: 1s\nsources:\n  - kind: poisson\n    keys: api-key\n    rate: 80/s\n`,
    'fidelity nodes scenario',
  );
}

/** N in-memory limiters each enforcing the full policy, behind a round-robin balancer: what N independent app servers do. */
function independentNodes(scenario: Scenario): Contender {
  const policy = scenario.policy;
  return {
    name: `${NODES} independent nodes`,
    probe: { algorithm: 'sliding-log', policy },
    stateBytesPerKey: undefined,
    create(clock: Clock): Decider {
      const nodes = Array.from({ length: NODES }, () => createLimiter('sliding-log', policy, { clock }));
      let next = 0;
      return { consume: (key, cost) => (nodes[next++ % NODES] as RateLimiter).consume(key, cost) };
    },
  };
}

/**
 * Claim 6: N nodes each enforcing the full limit admit N x (RateGate's 3-node demo), and
 * `limit / N` per node falsely denies when the balancer is skewed (CDN per-PoP counting):
 * the first through a round-robin fleet of exact limiters, the second through the
 * distributed simulator's `local-split` design against the global oracle.
 */
export const nodesCheck: FidelityCheck = {
  name: 'nodes',
  async run({ seed }) {
    const over = overloadScenario(seed);
    const { metrics } = await replay(independentNodes(over), scenarioWorkload(over).open(), {
      limit: over.policy.limit,
      windowMs: over.policy.windowMs,
      bucketMs: over.bucketMs,
      originMs: 0,
    });
    const under = underScenario(seed);
    const base = {
      nodes: NODES,
      strategy: 'local-split' as const,
      failMode: 'open' as const,
      algorithm: 'sliding-log' as const,
      syncMs: 100,
      rttMs: 0,
      timeoutMs: 50,
    };
    const split = await simulateDistributed(under, [
      { ...base, balance: 'skewed' },
      { ...base, balance: 'even' },
    ]);
    const [skewed, even] = split.rows;
    return [
      fullLimitCase(metrics.worstWindowRatio),
      splitCase(skewed?.falseDenials ?? 0, skewed?.offered ?? 0, even?.falseDenials ?? 0),
    ];
  },
};

function fullLimitCase(ratio: number): FidelityCase {
  return judged(
    {
      id: 'nodes/full-limit',
      claim: `${NODES} nodes each enforcing the full limit admit ${NODES}x the limit`,
      source: 'RateGate\'s 3-node demo; the arithmetic in docs/lab.md, "Where the claims come from"',
      scenario: `one key at 5x its limit (100/s), round robin over ${NODES} exact limiters`,
      expected: `${NODES}.00x`,
      measured: `${fixed(ratio)}x in one window`,
      details: { nodes: NODES, worstWindowRatio: ratio },
    },
    ratio > NODES - 0.1 && ratio <= NODES,
  );
}

function splitCase(falseDenials: number, offered: number, evenFalseDenials: number): FidelityCase {
  const percent = offered === 0 ? 0 : (100 * falseDenials) / offered;
  return judged(
    {
      id: 'nodes/split-skewed',
      claim: 'limit/N per node falsely denies under skewed load balancing, though the key is under its global limit',
      source:
        'CDN per-PoP counting; the distributed simulator (ratelab distributed --strategy local-split --balance skewed)',
      scenario: `one key at 80% of its limit, ${NODES} nodes with limit/${NODES} each, Zipf-skewed balancer (round robin beside it)`,
      expected: 'false denials > 0 (more than round robin)',
      measured: `${fixed(percent)}% falsely denied (${falseDenials.toLocaleString('en-US')}; round robin: ${evenFalseDenials.toLocaleString('en-US')})`,
      details: { nodes: NODES, offered, falseDenials, falseDenialPercent: percent, evenFalseDenials },
    },
    falseDenials > 0 && falseDenials > evenFalseDenials,
  );
}
