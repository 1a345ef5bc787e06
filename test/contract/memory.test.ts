import { createLimiter } from '../../src/index.js';
import { describeLimiterContract } from './limiter-contract.js';

describeLimiterContract('memory', (algorithm, policy, clock) => createLimiter(algorithm, policy, { clock }));
