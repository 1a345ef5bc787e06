import { createLimiter } from '../../src/index.js';
import { describeLimiterContract } from './limiter-contract.js';
import { describeObservedContract } from './observed-contract.js';

describeLimiterContract('memory', (algorithm, policy, clock) => createLimiter(algorithm, policy, { clock }));

// The same limiters behind a Promise, as a networked store answers: the contract must
// await every decision.
describeLimiterContract('memory, async', (algorithm, policy, clock) => {
  const limiter = createLimiter(algorithm, policy, { clock });
  return { consume: async (key, cost) => limiter.consume(key, cost) };
});

describeObservedContract(
  'memory',
  (algorithm, policy, clock, observed) => createLimiter(algorithm, policy, { clock, ...observed }),
  {
    async: false,
  },
);
