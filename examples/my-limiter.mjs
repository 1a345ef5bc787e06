// A complete limiter for `ratelab compare --limiter ./examples/my-limiter.mjs`.
//
// The contract: the default export (or a named export `createLimiter`) is a factory
// `(policy, { clock }) => limiter`, sync or async.
// - policy: { limit, windowMs, burst? }: at most `limit` units per `windowMs` ms;
//   `burst` is the bucket capacity where it applies (default: limit).
// - clock(): the current time in ms. Read time ONLY from it: the lab replays traffic on a
//   virtual clock, so Date.now() would see the wrong time (and make results vary).
// - limiter.consume(key, cost) returns { allowed, retryAfterMs? } (or a boolean), or a
//   Promise of one. retryAfterMs is when a denied client should retry; retry-storm scenarios
//   send clients back after it (without it they wait one window).
//
// This one is a leaky bucket meter with a plain Map: capacity `burst ?? limit`, draining
// at `limit / windowMs` units per ms. Compare it with the built-in token bucket.
export default function createLimiter(policy, { clock }) {
  const capacity = policy.burst ?? policy.limit;
  const drainPerMs = policy.limit / policy.windowMs;
  const levels = new Map(); // key -> { level, at }

  return {
    consume(key, cost = 1) {
      const now = clock();
      const state = levels.get(key) ?? { level: 0, at: now };
      const level = Math.max(0, state.level - (now - state.at) * drainPerMs);
      if (level + cost <= capacity) {
        levels.set(key, { level: level + cost, at: now });
        return { allowed: true, retryAfterMs: 0 };
      }
      levels.set(key, { level, at: now });
      const retryAfterMs = cost > capacity ? Infinity : Math.ceil((level + cost - capacity) / drainPerMs);
      return { allowed: false, retryAfterMs };
    },
  };
}
