import type { BackoffSpec } from '../scenario/scenario.js';
import type { Random } from './random.js';

/** Past this many doublings every wait is capped anyway (2^52 ms is 142,000 years). */
const MAX_DOUBLINGS = 52;

/**
 * The wait before retry `attempt` (0 for the first retry), in whole ms (at least 1),
 * by the variant of {@link BackoffSpec}; `previousMs` is the last wait of this request
 * (the decorrelated variant grows from it; pass `spec.baseMs` for the first retry).
 * Draws one uniform from `random`, except for `none`.
 */
export function backoffWait(spec: BackoffSpec, attempt: number, previousMs: number, random: Random): number {
  const { baseMs, capMs } = spec;
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(attempt, MAX_DOUBLINGS));
  let wait: number;
  switch (spec.jitter) {
    case 'none':
      wait = ceiling;
      break;
    case 'full':
      wait = random.uniform() * ceiling;
      break;
    case 'equal':
      wait = ceiling / 2 + random.uniform() * (ceiling / 2);
      break;
    case 'decorrelated':
      wait = Math.min(capMs, baseMs + random.uniform() * (3 * previousMs - baseMs));
      break;
  }
  return Math.max(1, Math.ceil(wait));
}
