import type { Algorithm } from '../../core/policy.js';
import type { Outage } from './outage.js';

/** The distributed designs the simulator compares, in the order reports list them. */
export const STRATEGIES = ['central', 'local-split', 'sync'] as const;
/**
 * - `central`: one shared limiter (the Redis path): every decision is a call to the store.
 * - `local-split`: each node enforces `limit / N` alone, never talking to the others.
 * - `sync`: each node decides locally on its own count plus the others' counts as of the
 *   last sync (every `syncMs`, delivered `rttMs` later).
 */
export type Strategy = (typeof STRATEGIES)[number];

import type { FailMode } from '../../core/fail-over.js';

/** How the load balancer spreads requests over nodes. */
export const BALANCES = ['even', 'skewed'] as const;
/**
 * - `even`: round robin over all requests, whatever their key.
 * - `skewed`: node i is picked at random with weight 1 / (i + 1) (Zipf, exponent 1): with
 *   4 nodes they get 48%, 24%, 16% and 12% of the requests.
 */
export type Balance = (typeof BALANCES)[number];

/** One simulated fleet: how many nodes, which design, and the network it runs on. */
export interface FleetOptions {
  /** Nodes behind the load balancer, a whole number >= 1. */
  nodes: number;
  strategy: Strategy;
  /**
   * What a design that needs the store (`central`, `sync`) does while the store is
   * unreachable, in the simulator:
   * - `open`: decide without the store (`central` admits everything; `sync` keeps deciding
   *   on the last counts it received, which age as the outage goes on).
   * - `closed`: deny everything.
   * - `local`: each node's own in-memory limiter with `limit / N` (see `nodeShare`).
   */
  failMode: FailMode;
  balance: Balance;
  /** The algorithm of the shared limiter (`central`) and of every node's own limiter. */
  algorithm: Algorithm;
  /** Sync period of `sync`, ms (>= 1). */
  syncMs: number;
  /** Round trip to the store, ms (>= 0): added to every `central` decision; delay of a sync. */
  rttMs: number;
  /** How long a call to an unreachable store waits before the fail mode applies, ms (>= 0). */
  timeoutMs: number;
  /** When the store is unreachable; none when undefined. */
  outage?: Outage;
}
