import { step, type StepTable } from '../support/steps.js';
import { TOKEN_BUCKET_TABLES } from './token-bucket.steps.js';

/**
 * GCRA: emission interval `T = windowMs / limit`, tolerance `tau = (burst - 1) * T`, a unit
 * admitted when `TAT - now <= tau`. It makes the token bucket's decisions (ITU-T I.371),
 * so the token bucket's tables hold for it unchanged, plus the tolerance edge below.
 */
export const GCRA_TABLES: StepTable[] = [
  ...TOKEN_BUCKET_TABLES,
  {
    name: 'tolerance is (burst - 1) * T: 1 per second, burst 1 admits no second request',
    policy: { limit: 1, windowMs: 1000, burst: 1 },
    capacity: 1,
    steps: [
      step(0, 1, true, 0, 0, 1000, 'TAT moves to 1000'),
      step(0, 1, false, 0, 1000, 1000, 'tau = 0; a tau of burst * T would admit this'),
      step(999, 1, false, 0, 1, 1, 'TAT - now = 1 > tau'),
      step(1000, 1, true, 0, 0, 1000, 'TAT - now = 0'),
      step(1000, 2, false, 0, Infinity, 1000, 'cost 2 > burst 1'),
    ],
  },
];
