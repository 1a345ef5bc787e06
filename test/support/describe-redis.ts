import { describe, it } from 'vitest';
import { redisAvailable } from './redis-server.js';

/** `describe`, when redis-server exists; otherwise skipped with a notice, or failing under RATELAB_REQUIRE_REDIS=1. */
export function describeRedis(name: string, body: () => void): void {
  if (redisAvailable) {
    describe(name, body);
    return;
  }
  if (process.env.RATELAB_REQUIRE_REDIS === '1') {
    describe(name, () => {
      it('needs redis-server on PATH (RATELAB_REQUIRE_REDIS=1)', () => {
        throw new Error('redis-server is not on PATH, and RATELAB_REQUIRE_REDIS=1 forbids skipping');
      });
    });
    return;
  }
  process.stderr.write(`\n[ratelab] SKIPPED "${name}": redis-server is not on PATH (install it, or set RATELAB_REQUIRE_REDIS=1 to fail instead)\n`);
  describe.skip(name, body);
}
