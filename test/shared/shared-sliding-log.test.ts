import { describe, expect, it } from 'vitest';
import { createMeter } from '../../src/algorithms/index.js';
import { checkPolicy } from '../../src/core/policy.js';
import { SharedColumns } from '../../src/shared/shared-columns.js';
import { expectRatelabError } from '../support/errors.js';

describe('the shared sliding log past what it can address', () => {
  // createSharedLimiter refuses such a size by its bytes first; a meter laid out over shared
  // columns by any other way gets the same code, at the layout, not a bare RangeError.
  it('refuses more than 2^31 - 1 timestamps with POLICY_TOO_LARGE naming maxKeys', () => {
    const meter = createMeter(
      'sliding-log',
      checkPolicy({ limit: 2 ** 20, windowMs: 1000 }, 'sliding-log'),
      new SharedColumns(undefined, 0),
    );
    const { message } = expectRatelabError(() => meter.resize(2 ** 11), 'POLICY_TOO_LARGE', 'maxKeys');
    expect(message).toContain(`${2 ** 31} timestamps`);
  });
});
