// `ratelab`: the in-memory limiter library. It loads no third-party module and no lab code
// (.dependency-cruiser.cjs core-* rules; test/entries.test.ts counts the names). Other
// audiences have their own entries: ratelab/redis, ratelab/http, ratelab/tiers (tiers
// files: yaml and zod), ratelab/lab (the simulator, metrics and attack runner).

/** Creates an in-memory limiter: `createLimiter(algorithm, policy, options?)`, O(1) per decision. */
export { createLimiter } from './memory/limiter.js';
/** The limiter (`allow`, `consume`, `reset`, `prune`) and its options (clock, `idleMs`, `maxKeys`). */
export type { LimiterOptions, RateLimiter } from './memory/limiter.js';
/** What `limiter.inspect(key)` reads: one key's state as its algorithm holds it (bucket level, GCRA's TAT, the log's timestamps, the counters). */
export type { KeyState } from './algorithms/index.js';
/** `limiter.wait(key, cost, options)`'s options: `signal` (abort: nothing taken) and `maxWaitMs` (past it: `WAIT_TOO_LONG` at once). */
export type { WaitOptions } from './wait/key-waiters.js';
/** Wraps a function so each call first waits for its slot (`key`/`cost` may be functions of the arguments); per-key call order kept. */
export { throttle } from './wait/throttle.js';
/** throttle's options (`limiter`, `key`, `cost`, `maxWaitMs`, `signal`) and what it accepts as a limiter (anything with `wait`). */
export type { ThrottleOptions, Waitable } from './wait/throttle.js';
/** A client in front of someone else's API: wraps a fetch-shaped function so calls queue per host (or key), learn the server's limit from its headers, pause on Retry-After and restart paced, AIMD without headers, optional SRE local rejection, bounded retries; `stats()` on it. */
export { adaptiveThrottle, createAdaptiveLimiter } from './wait/adaptive.js';
/** adaptiveThrottle's and createAdaptiveLimiter's options, events, stats and the limiter (`wait`, `observe`, `stats`). */
export type {
  AdaptiveFetch,
  AdaptiveLimiter,
  AdaptiveLimiterOptions,
  AdaptiveStats,
  AdaptiveThrottleOptions,
  AdaptiveWaitOptions,
  AimdOptions,
  BrainOptions,
  KeyInsight,
  LearnEvent,
  ObserveOptions,
  RejectLocallyOptions,
  ResponseLike,
  RetryPolicy,
  ThrottleEvent,
} from './wait/adaptive.js';
/** Reads what a response's rate-limit fields say (Retry-After, RateLimit/RateLimit-Policy drafts 6-10, X-RateLimit-*): figures and one line per malformed or contradictory field, never a throw. */
export { readServerLimit } from './core/server-limit.js';
/** What readServerLimit returns, the policy it reads, and the header shapes it accepts. */
export type { HeadersLike, ServerLimit, ServerPolicy } from './core/server-limit.js';
/** The one limiter interface (`consume`, `allow`, `wait`, `reset`, results awaitable) every limiter implements, and the one consumer type (`consume`, sync or async). */
export type { AsyncRateLimiter, Awaitable, Consumer } from './core/limiter.js';
/** The backend seam: a limiter over any store that implements `LimiterStore` (decide, reset), with the fail modes, deny cache and waits (docs/backends.md). */
export { createStoreLimiter } from './backend/store-limiter.js';
/** What a backend implements (`LimiterStore`), what the seam gives it (`StoreContext`), the options every backend shares, and its limiter. */
export type { LimiterStore, StoreContext, StoreLimiterOptions, StoreRateLimiter } from './backend/store-limiter.js';
/** Why a decision of a limiter over a store is what it is (`reason`), and such a decision. */
export type { DecisionReason, FailMode, FailOverReason, ReasonedDecision } from './core/fail-over.js';
/** Decision events (every limiter's `onDecision` option and `addDecisionListener`), outcome counters (`addOutcomeCounter`) and shadow mode (`enforce: false`): the event, its listener, the counter, the options, the five outcomes. */
export type {
  DecisionEvent,
  DecisionListener,
  DecisionSource,
  ObservedOptions,
  Outcome,
  OutcomeCounter,
} from './core/decision-event.js';
/** The five outcomes in report order: allowed, denied, shadow-denied, failed-open, failed-closed. */
export { OUTCOMES } from './core/decision-event.js';
/** One decision: `allowed`, `limit` and `remaining` units, `retryAfterMs` and `resetMs` in whole ms (rounded up); with several limits, each one's answer in `limits`. */
export type { Decision, LimitDecision } from './core/decision.js';

/** The five algorithm names, in report order: token-bucket, gcra, sliding-log, sliding-counter, fixed-window. */
export { ALGORITHMS } from './core/policy.js';
/** Checks an algorithm name; throws `UNKNOWN_ALGORITHM` listing the five. */
export { checkAlgorithm } from './core/names.js';
/** Validates a policy and resolves its capacity; throws `INVALID_POLICY` or `POLICY_TOO_LARGE` naming the field. */
export { checkPolicy } from './core/policy.js';
/** The largest `limit` and `burst`: 2^32 - 1 (counters are 32-bit). */
export { MAX_LIMIT } from './core/policy.js';
/** The sliding log's largest `limit`: 2^20 timestamps in a full key's window (8 MiB). */
export { SLIDING_LOG_MAX_LIMIT } from './core/sliding-log-size.js';
/** `Policy`: `limit` units per `windowMs` ms (whole numbers >= 1), optional `burst`; `Limits`: a checked policy with its `capacity`. */
export type { Algorithm, Limits, Policy } from './core/policy.js';
/** Several limits on one key, all or nothing: `LimitSpec` (a policy with its own `algorithm?` and `name?`), `PolicyInput` (a policy or a list of them), `NamedLimits` (`limiter.policies`' entries). */
export type { LimitSpec, NamedLimits, PolicyInput } from './core/policy.js';
/** The most limits one limiter enforces at once: 16. */
export { MAX_LIMITS } from './core/limit-list.js';

/** A clock that moves only when told to (ms), for tests and simulations. */
export { ManualClock } from './core/clock.js';
/** A new system clock in epoch ms, never stepping backwards (each call makes one). */
export { createSystemClock } from './core/clock.js';
/** @deprecated use createSystemClock */
export { systemClock } from './core/clock.js';
/** `Clock`: a function returning ms; `ClockSource`: a clock or anything with `now()`; `Scheduler`: `now()` and `schedule(callback, delayMs)`, the timers waits use (a ManualClock is one). */
export type { Clock, ClockSource, Scheduler } from './core/clock.js';

/** The one error ratelab throws on purpose: a stable `code`, the offending `field`, every `problems` line. */
export { RatelabError } from './core/errors.js';
/** The stable error codes (docs/errors.md says what to do about each). */
export type { RatelabErrorCode } from './core/errors.js';

/** Parses `250ms`, `1.5s`, `1m`, `1h`, `1d` or a number of ms into whole ms (> 0); throws `INVALID_DURATION`. */
export { parseDuration } from './core/duration.js';
/** Formats ms for people: 1500 -> `1.5s`, 60000 -> `1m`. */
export { formatDuration } from './core/duration.js';

/** One limiter per tier, each client decided by its tier's; built from a `TiersConfig` (ratelab/tiers parses files). */
export { RateLimiterRegistry } from './tiers/registry.js';
/** The registry's options (a resolver) and its decision (with the `tier` that made it). */
export type { RegistryOptions, TierDecision } from './tiers/registry.js';
/** A validated tiers file: `tiers` (name -> algorithm and policy, or `unlimited`), `clients`, `default`. */
export type { TierSpec, TiersConfig } from './tiers/types.js';
