import type { Algorithm } from '../../src/index.js';
import type { StepTable } from '../support/steps.js';
import { FIXED_WINDOW_TABLES } from './fixed-window.steps.js';
import { GCRA_TABLES } from './gcra.steps.js';
import { SLIDING_COUNTER_TABLES } from './sliding-counter.steps.js';
import { SLIDING_LOG_TABLES } from './sliding-log.steps.js';
import { TOKEN_BUCKET_TABLES } from './token-bucket.steps.js';

/** Every algorithm's hand-worked step tables. */
export const STEP_TABLES: Record<Algorithm, StepTable[]> = {
  'token-bucket': TOKEN_BUCKET_TABLES,
  gcra: GCRA_TABLES,
  'sliding-log': SLIDING_LOG_TABLES,
  'sliding-counter': SLIDING_COUNTER_TABLES,
  'fixed-window': FIXED_WINDOW_TABLES,
};
