import type { Clock } from '../../core/clock.js';
import type { RateLimiter } from '../../memory/limiter.js';
import type { Policy } from '../../core/policy.js';
import type { Random } from '../../traffic/random.js';
import type { Decider } from '../contender.js';
import { CentralDesign } from './central.js';
import type { Design, Verdict } from './design.js';
import type { FleetOptions } from './fleet-options.js';
import { LatencyTally, type AddedLatency } from './latency-tally.js';
import { LoadBalancer } from './load-balancer.js';
import { LocalSplitDesign } from './local-split.js';
import { nodeLimiters } from './node-share.js';
import { isDown } from './outage.js';
import { StoreCalls } from './store-calls.js';
import { SyncDesign } from './sync.js';
import { SyncSchedule } from './sync-schedule.js';

const DENY: Verdict = { allowed: false };

/** What happened while the store was down: requests offered and admitted in the outage. */
export interface OutageCounts {
  offered: number;
  admitted: number;
}

/**
 * N simulated nodes behind a load balancer, deciding by one design, on one virtual
 * clock: a {@link Decider} the lab's `replay` drives like any limiter, so the exact
 * global oracle, the worst window and the timeline come from the lab's recorder.
 * Each call: the balancer picks a node; while the store is down a design that needs it
 * follows the fail mode; the wait on the network is tallied (the round trip for a call
 * to the store, the timeout for a call to a store that does not answer), and so are the
 * calls to the store: a decision's own, and the design's in the background (`sync`).
 */
export class Fleet implements Decider {
  private readonly design: Design;
  private readonly balancer: LoadBalancer;
  private readonly local: RateLimiter[];
  private readonly latency = new LatencyTally();
  private readonly calls = new StoreCalls();
  private readonly inOutage: OutageCounts = { offered: 0, admitted: 0 };

  constructor(
    private readonly options: FleetOptions,
    policy: Policy,
    private readonly clock: Clock,
    random: Random,
  ) {
    this.balancer = new LoadBalancer(options.balance, options.nodes, random);
    this.local = nodeLimiters(options.algorithm, policy, options.nodes, clock);
    this.design = createDesign(options, policy, clock, this.local, this.calls);
  }

  consume(key: string, cost: number): Verdict {
    const t = this.clock();
    const node = this.balancer.next();
    this.design.advance(t);
    if (!this.design.needsStore || !isDown(this.options.outage, t)) {
      this.wait(this.options.rttMs);
      return this.design.decide(node, key, cost, t);
    }
    this.wait(this.options.timeoutMs);
    const verdict = this.failover(node, key, cost, t);
    this.inOutage.offered += 1;
    if (verdict.allowed) this.inOutage.admitted += 1;
    return verdict;
  }

  /** The run ended at `endMs` (the scenario's duration): the design's background calls due before it are made. */
  endRun(endMs: number): void {
    this.design.advance(endMs);
  }

  /** Calls to the store so far, including those that timed out (see {@link StoreCalls}). */
  storeCalls(): number {
    return this.calls.total();
  }

  /** The added latency of the decisions so far. */
  addedLatency(): AddedLatency {
    return this.latency.summary();
  }

  /** Requests offered and admitted while the store was down (both 0 for designs without a store). */
  outageCounts(): OutageCounts {
    return { ...this.inOutage };
  }

  /**
   * A decision's time on the network: for a design that decides at the store, one call
   * answered after `ms` (the round trip, or the timeout when the store is down); none
   * for a local decision.
   */
  private wait(ms: number): void {
    if (!this.design.remote) {
      this.latency.add(0);
      return;
    }
    this.latency.add(ms);
    this.calls.add(1);
  }

  private failover(node: number, key: string, cost: number, t: number): Verdict {
    switch (this.options.failMode) {
      case 'open':
        return this.design.decideOpen(node, key, cost, t);
      case 'closed':
        return DENY;
      case 'local': {
        const verdict = (this.local[node] as RateLimiter).consume(key, cost);
        if (verdict.allowed) this.design.admittedLocally(node, key, cost, t);
        return verdict;
      }
    }
  }
}

function createDesign(
  options: FleetOptions,
  policy: Policy,
  clock: Clock,
  local: RateLimiter[],
  calls: StoreCalls,
): Design {
  switch (options.strategy) {
    case 'central':
      return new CentralDesign(options.algorithm, policy, clock);
    case 'local-split':
      return new LocalSplitDesign(local);
    case 'sync':
      return new SyncDesign(
        policy,
        options.nodes,
        new SyncSchedule(options.syncMs, options.rttMs, options.outage),
        calls,
      );
  }
}
