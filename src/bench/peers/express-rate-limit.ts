// express-rate-limit's MemoryStore (a fixed window per key), adapted to the `--limiter` module
// contract: a request is admitted while the key's hit count is within the limit. It counts
// denied hits too, as express-rate-limit does. A dev dependency: absent, the benchmark skips
// it. It reads wall time itself (Date.now) and resets windows on a timer, so it cannot
// follow the benchmark's virtual clock: the bench gives it a policy no real call rate
// reaches (see PEER_POLICY in ../subjects.ts).
import type { Options } from 'express-rate-limit';
import type { Policy } from '../../core/policy.js';

/** How the peer is built under `policy`, as the report prints it. */
export function configuration(policy: Policy): string {
  return `new MemoryStore().init(${JSON.stringify({ windowMs: policy.windowMs })}); increment(key), awaited, admitted while totalHits <= ${policy.limit} (reads Date.now)`;
}

export default async function createPeer(policy: Policy): Promise<{ consume(key: string): Promise<boolean> }> {
  const { MemoryStore } = await import('express-rate-limit');
  const store = new MemoryStore();
  store.init({ windowMs: policy.windowMs } as Options);
  return {
    // MemoryStore counts hits, not costs: each call is one hit, whatever its cost.
    consume: (key) => store.increment(key).then((client) => client.totalHits <= policy.limit),
  };
}
