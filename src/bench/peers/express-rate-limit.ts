// express-rate-limit's MemoryStore (a fixed window per key), adapted to the `--limiter` module
// contract: a request is admitted while the key's hit count is within the limit. It counts
// denied hits too, as express-rate-limit does. A dev dependency: absent, the benchmark skips
// it. It reads wall time itself (Date.now) and resets windows on a timer, so it cannot
// follow the benchmark's virtual clock.
import type { Options } from 'express-rate-limit';
import type { Policy } from '../../policy.js';

export default async function createPeer(policy: Policy): Promise<{ consume(key: string): Promise<boolean> }> {
  const { MemoryStore } = await import('express-rate-limit');
  const store = new MemoryStore();
  store.init({ windowMs: policy.windowMs } as Options);
  return {
    // MemoryStore counts hits, not costs: each call is one hit, whatever its cost.
    consume: (key) => store.increment(key).then((client) => client.totalHits <= policy.limit),
  };
}
