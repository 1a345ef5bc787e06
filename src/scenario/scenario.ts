import type { LimitSpec, Policy, PolicyInput } from '../core/policy.js';

/**
 * Which keys a source's requests carry: `count` keys named `${prefix}${i}` (or just
 * `prefix` when there is one key), picked per request in turn (`round-robin`), uniformly
 * at random, or by Zipf-like popularity (key i with weight 1 / (i + 1)^exponent).
 */
export interface KeySpec {
  count: number;
  prefix: string;
  pick: 'round-robin' | 'uniform' | 'zipf';
  exponent: number;
}

interface SourceBase {
  keys: KeySpec;
  /** Units each request takes from its key's quota: a whole number >= 1. */
  cost: number;
  /** What the source's requests are (a legitimate user, an attacker): rows count per label. */
  label?: string;
}

/** Evenly spaced (`steady`) or Poisson arrivals at `ratePerMs` requests per ms in [startMs, endMs). */
export interface RateSourceSpec extends SourceBase {
  kind: 'steady' | 'poisson';
  startMs: number;
  endMs: number;
  ratePerMs: number;
}

/** `count` requests at `atMs` (spread evenly over `spreadMs`), repeated `times` times every `everyMs`. */
export interface BurstSourceSpec extends SourceBase {
  kind: 'burst';
  atMs: number;
  count: number;
  spreadMs: number;
  everyMs: number;
  times: number;
}

/** Pareto-distributed period lengths: `minMs * U^(-1/alpha)`; heavy-tailed for alpha < 2. */
export interface ParetoSpec {
  alpha: number;
  minMs: number;
}

/** Alternating on/off periods (Pareto lengths, starting on); Poisson arrivals at `ratePerMs` while on. */
export interface OnOffSourceSpec extends SourceBase {
  kind: 'onoff';
  startMs: number;
  endMs: number;
  ratePerMs: number;
  on: ParetoSpec;
  off: ParetoSpec;
}

/**
 * Exponential backoff, as in Brooker's "Exponential Backoff And Jitter" (AWS Architecture
 * Blog, 2015): retry n (from 0) waits, with `v = min(capMs, baseMs * 2^n)`,
 * - `none`: v;
 * - `full`: uniform in [0, v);
 * - `equal`: v / 2 + uniform in [0, v / 2);
 * - `decorrelated`: min(capMs, uniform in [baseMs, 3 * previous wait)), the first
 *   previous wait being baseMs.
 * Waits are whole ms, at least 1.
 */
export interface BackoffSpec {
  baseMs: number;
  capMs: number;
  jitter: 'none' | 'full' | 'equal' | 'decorrelated';
}

/**
 * A closed loop of `clients` clients, each with one request outstanding: the first sent
 * at a uniformly random time in [startMs, startMs + rampMs]; a denied request is retried
 * after the limiter's Retry-After, stretched by up to `jitter` of itself at random
 * (0: no jitter, every denied client comes back at the same instant); after `maxRetries`
 * retries, or once admitted, the client waits `thinkMs` (>= 1) and sends its next request.
 * A Retry-After of 0 counts as 1 ms, so a client never loops within one instant.
 *
 * With `backoff`, a denial that carries no Retry-After (a limiter that gives none), or
 * every denial when `honourRetryAfter` is false, waits the backoff instead; without it, no
 * Retry-After means one window. A Retry-After of Infinity (the request can never fit)
 * always ends the request.
 */
export interface RetrySourceSpec extends SourceBase {
  kind: 'retry';
  startMs: number;
  endMs: number;
  clients: number;
  rampMs: number;
  thinkMs: number;
  jitter: number;
  maxRetries: number;
  /** Whether a Retry-After is waited for (default true); false needs `backoff`. */
  honourRetryAfter?: boolean;
  backoff?: BackoffSpec;
  /**
   * Self-throttling clients (`ratelab`'s `throttle`): a request is sent only once a
   * client-side sliding log of `limit` per `windowMs` per key (the published limit) has a
   * slot for it, clients of a key served first come first served; a denial the server
   * still gives is retried as above, through the throttle again.
   */
  throttle?: { limit: number; windowMs: number };
  /**
   * `adaptive`: the clients send through the adaptive client (`adaptiveThrottle`'s brain,
   * src/wait/adaptive-brain.ts, one per source and keyed by the clients' keys), which
   * learns from each decision's Retry-After: a key paused until then (with jitter), its
   * calls restarted paced, AIMD on denials. A denied request is retried through it again.
   */
  client?: 'adaptive';
}

/** One traffic source of a scenario; sources compose by merging their arrivals by time. */
export type SourceSpec = RateSourceSpec | BurstSourceSpec | OnOffSourceSpec | RetrySourceSpec;

/** A validated scenario: what traffic to replay, under which policy, for how long. */
export interface Scenario {
  name: string;
  /** One line: what the scenario teaches. */
  description: string;
  /** The policy; for a composite, its first limit (the one charts and strips draw). */
  policy: Policy;
  /** A composite's limits (two or more), in order, every one enforced at once; absent for a single policy. */
  limits?: readonly LimitSpec[];
  /**
   * Limits measured but not enforced: a composite scenario's own limits when its policy is
   * replaced (`--policy`), so its report still shows how each of them fared.
   */
  watched?: readonly LimitSpec[];
  /** Arrivals at or after this time (ms from 0) are not generated. */
  durationMs: number;
  /** Seeds every random choice: the same seed gives the same arrivals and decisions. */
  seed: number;
  /** Width of a timeline bucket, ms. */
  bucketMs: number;
  sources: SourceSpec[];
  /** The file it came from (for messages). */
  file: string;
}

/** What holds a policy the way a scenario does: the policy, and a composite's limits when it has several. */
export interface PolicyHolder {
  policy: Policy;
  limits?: readonly LimitSpec[];
  /** Limits only measured, not enforced (see `Scenario.watched`). */
  watched?: readonly LimitSpec[];
}

/** What `holder` enforces, as a limiter takes it: its composite's limits, else its one policy. */
export function policyInputOf(holder: PolicyHolder): PolicyInput {
  return holder.limits ?? holder.policy;
}

/**
 * `input` as a {@link PolicyHolder}: a list of two or more limits is a composite (its first
 * limit as `policy`); a list of one is that one policy, so it replays exactly as a single one.
 */
export function policyHolder(input: PolicyInput): PolicyHolder {
  if (!Array.isArray(input)) return { policy: input as Policy };
  const list = input as readonly LimitSpec[];
  const { limit, windowMs, burst } = list[0] as LimitSpec;
  const policy: Policy = burst === undefined ? { limit, windowMs } : { limit, windowMs, burst };
  return list.length === 1 ? { policy } : { policy, limits: list };
}
