import { ALGORITHMS, type Algorithm } from '../../core/policy.js';
import { EXIT } from '../exit-codes.js';
import type { Command } from '../../report/io.js';

/** One line each: what the algorithm keeps per key and what it gets wrong. */
const ALGORITHM_SUMMARIES: Record<Algorithm, string> = {
  'token-bucket': 'tokens + last refill per key; bursts up to its capacity, then the steady rate',
  gcra: "one timestamp per key (leaky bucket as a meter); the token bucket's decisions",
  'sliding-log':
    "a timestamp per admitted request; exact, memory follows the units in each key's window (at most limit)",
  'sliding-counter': 'two counters per key, previous window weighted; approximate, up to ~2x in the worst case',
  'fixed-window': 'one counter per aligned window; lets 2x the limit through across a window edge',
};

/** `ratelab algorithms`: lists the algorithms. */
export const algorithmsCommand: Command<Record<string, never>> = async (_options, io) => {
  const width = Math.max(...ALGORITHMS.map((name) => name.length));
  for (const name of ALGORITHMS) io.stdout.write(`${name.padEnd(width)}  ${ALGORITHM_SUMMARIES[name]}\n`);
  return EXIT.OK;
};
