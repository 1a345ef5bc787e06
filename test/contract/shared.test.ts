import type { Policy } from '../../src/index.js';
import { createSharedLimiter } from '../../src/shared/limiter.js';
import { describeLimiterContract } from './limiter-contract.js';

// The shared limiter in one thread: the same contract as every backend (threads: test/shared/).
describeLimiterContract(
  'shared',
  (algorithm, policy, clock) => createSharedLimiter(algorithm, policy as Policy, { clock, maxKeys: 256 }),
  { composite: false },
);
describeLimiterContract(
  'shared, global lock',
  (algorithm, policy, clock) =>
    createSharedLimiter(algorithm, policy as Policy, { clock, maxKeys: 256, locking: 'global' }),
  { composite: false },
);
