import { createSharedLimiter } from '../../src/shared/limiter.js';
import { describeLimiterContract } from './limiter-contract.js';
import { describeObservedContract } from './observed-contract.js';

// The shared limiter in one thread: the same contract as every backend (threads: test/shared/).
describeLimiterContract('shared', (algorithm, policy, clock) =>
  createSharedLimiter(algorithm, policy, { clock, maxKeys: 256 }),
);
describeLimiterContract('shared, global lock', (algorithm, policy, clock) =>
  createSharedLimiter(algorithm, policy, { clock, maxKeys: 256, locking: 'global' }),
);
describeObservedContract(
  'shared',
  (algorithm, policy, clock, observed) => createSharedLimiter(algorithm, policy, { clock, maxKeys: 256, ...observed }),
  { async: false },
);
