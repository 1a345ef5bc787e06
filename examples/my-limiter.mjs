// A complete limiter module for `ratelab compare --limiter` and `ratelab bench --limiter`:
// a fixed window per key, written the way you would write your own.
//
// The contract:
// - The default export (or a named export `createLimiter`) is a factory
//   `(policy, { clock }) => limiter`, sync or async.
// - `policy` is `{ limit, windowMs, burst? }`: at most `limit` units per `windowMs` ms.
// - `clock()` returns the time in milliseconds. Read time ONLY from it: the lab replays
//   traffic on a virtual clock, and a limiter that reads Date.now() sees the wrong time.
// - `limiter.consume(key, cost)` returns (or resolves to) `{ allowed, ... }` or a boolean.
//   The optional fields `remaining`, `retryAfterMs`, `resetMs`, `limit` are reported
//   when present.

/** @param {{ limit: number, windowMs: number }} policy @param {{ clock: () => number }} options */
export default function createLimiter(policy, { clock }) {
  const { limit, windowMs } = policy;
  /** key -> { window: index of its current window, used: units admitted in it } */
  const counters = new Map();

  return {
    consume(key, cost = 1) {
      const now = clock();
      const window = Math.floor(now / windowMs);
      let counter = counters.get(key);
      if (counter === undefined || counter.window !== window) {
        counter = { window, used: 0 };
        counters.set(key, counter);
      }
      const resetMs = Math.ceil((window + 1) * windowMs - now);
      const allowed = counter.used + cost <= limit;
      if (allowed) counter.used += cost;
      return {
        allowed,
        limit,
        remaining: limit - counter.used,
        retryAfterMs: allowed ? 0 : cost > limit ? Infinity : resetMs,
        resetMs: counter.used === 0 ? 0 : resetMs,
      };
    },
  };
}
