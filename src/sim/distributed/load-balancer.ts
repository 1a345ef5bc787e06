import type { Random } from '../../traffic/random.js';
import { KeyPicker } from '../../traffic/keys.js';
import type { Balance } from './fleet-options.js';

/** Zipf exponent of the `skewed` balance: node i gets weight 1 / (i + 1). */
const SKEW_EXPONENT = 1;

/**
 * Picks the node of each request, whatever its key (a load balancer without stickiness):
 * round robin for `even`, a seeded Zipf pick for `skewed`. Reuses the traffic layer's
 * key picker, whose keys here are node numbers.
 */
export class LoadBalancer {
  private readonly picker: KeyPicker;

  constructor(balance: Balance, nodes: number, random: Random) {
    const pick = balance === 'even' ? 'round-robin' : 'zipf';
    this.picker = new KeyPicker({ count: nodes, prefix: 'node', pick, exponent: SKEW_EXPONENT }, random);
  }

  /** The node (0-based) that gets the next request. */
  next(): number {
    return this.picker.nextIndex();
  }
}

/** The share of requests node `i` of `nodes` gets under `balance` (in expectation for `skewed`). */
export function nodeWeight(balance: Balance, nodes: number, i: number): number {
  if (balance === 'even') return 1 / nodes;
  let total = 0;
  for (let j = 0; j < nodes; j++) total += 1 / Math.pow(j + 1, SKEW_EXPONENT);
  return 1 / Math.pow(i + 1, SKEW_EXPONENT) / total;
}
