import type { Decision } from '../core/decision.js';
import type { ServerLimit, ServerPolicy } from '../core/server-limit.js';

/**
 * The decisions of an adaptive client, per key, on a time it is given: when the next
 * request may go (`consume`), and what a response teaches (`learn`). Pure and synchronous:
 * `adaptiveThrottle` and `createAdaptiveLimiter` run it on a scheduler's time, the lab's
 * `client: adaptive` on its virtual clock; both therefore make the same decisions.
 *
 * A request goes when every gate is open (until a key's first response, one request at a
 * time: the probe that learns the policy):
 * 1. the pause: a `Retry-After` (or a throttling response announcing `remaining` 0 and a
 *    reset) holds the key until then, plus a jitter of up to `jitter` x the wait, so
 *    independent clients told the same instant do not return together;
 * 2. the budget: `remaining` as the server last announced it (less what was sent since)
 *    until its reset;
 * 3. the pacing: a token bucket at the learned rate (the announced policy's, times
 *    `safety`, and under an AIMD rate after a throttle) holding at most the learned burst.
 *    After a pause the bucket holds one request: the waiting calls restart paced.
 */

/** AIMD (additive increase, multiplicative decrease) on throttling responses, as AWS SDKs' adaptive retry mode does. */
export interface AimdOptions {
  /** The rate after a throttle is the measured send rate times this (0 < x < 1; default 0.5). */
  decrease?: number;
  /** Per second of accepted responses the rate grows by this fraction of the rate before the last decrease, that rate taken as at least 5/s (> 0; default 0.2: at least +1/s per second). */
  increase?: number;
  /** The lowest rate, requests per second (> 0; default 0.5). */
  minRatePerSec?: number;
}

/** Google SRE client-side throttling: reject locally with probability `max(0, (requests - k * accepts) / (requests + 1))`. */
export interface RejectLocallyOptions {
  /** The multiplier of accepts (>= 1; the SRE book suggests 2). */
  k: number;
  /** The window requests and accepts are counted over, ms (> 0; default 120000, two minutes). */
  windowMs?: number;
}

/** How an {@link AdaptiveBrain} decides. */
export interface BrainOptions {
  /** A starting guess of the server's policy, before any response tells it. */
  initial?: { limit: number; windowMs: number; burst?: number };
  /** The pacing rate is the announced rate times this (0 < x <= 1; default 0.95): headroom for clock and rounding differences. */
  safety?: number;
  /** The jitter added to a pause, as a fraction of the wait: uniform in [0, jitter x wait) ms (0..1; default 0.2). */
  jitter?: number;
  /** AIMD on throttling responses. */
  aimd?: AimdOptions;
  /** SRE local rejection (off unless given). */
  rejectLocally?: RejectLocallyOptions;
}

/** What the brain holds of one key, as `stats()` shows it. */
export interface KeyInsight {
  /** The policy announced by the server (or the initial guess), if any. */
  policy?: ServerPolicy | { limit: number; windowMs: number; burst?: number; field: 'initial' };
  /** The pacing rate now, requests per second; absent while nothing limits the sends. */
  ratePerSec?: number;
  /** Where the rate comes from: the announced policy, or AIMD after a throttle without one (or under it). */
  rateSource?: 'policy' | 'aimd';
  /** The most requests sent at once (the bucket's capacity). */
  burst: number;
  /** The budget left as the server announced it, less what was sent since; absent when unknown or past its reset. */
  remaining?: number;
  /** Time until the pause ends, ms (0 when not paused). */
  pausedForMs: number;
}

/** What one response changed, for the hooks. */
export interface Learned {
  /** The response throttled (429, 503). */
  throttled: boolean;
  /** The pause it started: until this time (its jitter included), ms on the brain's clock. */
  pausedUntil?: number;
  /** The wait the server asked for, ms. */
  retryAfterMs?: number;
  /** The policy changed (first announced, or different). */
  policyChanged: boolean;
  /** The AIMD rate was cut. */
  decreased: boolean;
}

const DEFAULTS = { safety: 0.95, jitter: 0.2, decrease: 0.5, increase: 0.2, minRatePerSec: 0.5 } as const;
/** The send rate is measured over the last second. */
const RATE_WINDOW_MS = 1000;
/** At most this many send times are kept per key for the measured rate. */
const MAX_SENDS_KEPT = 4096;
/** While the first request of a key is unanswered the others ask again this often, ms (a response wakes them at once). */
const PROBE_WAIT_MS = 1000;
/** The additive step grows from at least this rate, requests per ms (5/s: +1/s per second at the default increase), so a cut from a rate measured on a handful of sends recovers in seconds. */
const MIN_INCREASE_BASE = 5 / 1000;
/** Refill rounding tolerated, tokens. */
const TOKEN_EPSILON = 1e-9;
/** SRE counters: this many buckets per window. */
const SRE_BUCKETS = 10;

interface KeyState {
  policy: KeyInsight['policy'];
  /** Requests per ms from the policy (times safety); Infinity when none. */
  policyRate: number;
  /** Requests per ms from AIMD; Infinity while no throttle has cut it. */
  aimdRate: number;
  /** The rate before the last decrease, requests per ms. */
  lastMaxRate: number;
  decreasedAt: number;
  increasedAt: number;
  /** When the current policy was learned (-Infinity: never): a throttle of a request sent before is explained by not knowing it. */
  policyAt: number;
  /** A response of this key was seen: until then one request at a time is sent (the probe). */
  answered: boolean;
  capacity: number;
  tokens: number;
  tokensAt: number;
  remaining: number | undefined;
  resetAt: number;
  pausedUntil: number;
  inflight: number;
  sends: number[];
  sreRequests: Float64Array;
  sreAccepts: Float64Array;
  sreBucketAt: Float64Array;
}

/** One adaptive client's per-key state and decisions; see the module's doc. */
export class AdaptiveBrain {
  private readonly keys = new Map<string, KeyState>();
  private readonly safety: number;
  private readonly jitter: number;
  private readonly decrease: number;
  private readonly increase: number;
  private readonly minRate: number;

  /**
   * @param options how it decides (checked by the caller)
   * @param random uniform in [0, 1): the jitter and the SRE draws
   */
  constructor(
    private readonly options: BrainOptions,
    private readonly random: () => number,
  ) {
    this.safety = options.safety ?? DEFAULTS.safety;
    this.jitter = options.jitter ?? DEFAULTS.jitter;
    this.decrease = options.aimd?.decrease ?? DEFAULTS.decrease;
    this.increase = options.aimd?.increase ?? DEFAULTS.increase;
    this.minRate = (options.aimd?.minRatePerSec ?? DEFAULTS.minRatePerSec) / 1000;
  }

  /**
   * Whether `cost` units of `key` may be sent at `now`; if so they are taken (counted in
   * flight until {@link learn}). Denied: `retryAfterMs` says when to ask again.
   */
  consume(key: string, cost: number, now: number): Decision {
    const s = this.state(key, now);
    const deny = (waitMs: number): Decision => ({
      allowed: false,
      limit: s.capacity,
      remaining: 0,
      retryAfterMs: Math.max(waitMs, 0.001),
      resetMs: 0,
    });
    if (now < s.pausedUntil) return deny(s.pausedUntil - now);
    if (!s.answered && s.inflight > 0) return deny(PROBE_WAIT_MS);
    if (s.remaining !== undefined) {
      if (now >= s.resetAt) s.remaining = undefined;
      else if (s.remaining < cost) return deny(s.resetAt - now);
    }
    const rate = Math.min(s.policyRate, s.aimdRate);
    if (rate < Infinity) {
      s.tokens = Math.min(s.capacity, s.tokens + Math.max(0, now - s.tokensAt) * rate);
      s.tokensAt = Math.max(now, s.tokensAt);
      const need = Math.min(cost, s.capacity);
      // A token due now is here: the refill's rounding must not leave it a hair short.
      if (s.tokens + TOKEN_EPSILON < need) return deny((need - s.tokens) / rate);
      s.tokens -= cost;
    }
    if (s.remaining !== undefined) s.remaining -= cost;
    s.inflight++;
    if (s.sends.length >= MAX_SENDS_KEPT) s.sends.shift();
    s.sends.push(now);
    return {
      allowed: true,
      limit: s.capacity,
      remaining: Math.max(0, Math.floor(s.tokens)),
      retryAfterMs: 0,
      resetMs: 0,
    };
  }

  /**
   * What a response of `key` teaches, read at `now`.
   * @param throttled the status throttles (429, 503)
   * @param limit what its fields say ({@link readServerLimit})
   * @param sentAt when its request was sent (default `now`): a throttle of a request sent
   *   before the last decrease does not cut the rate again
   */
  learn(key: string, throttled: boolean, limit: ServerLimit, now: number, sentAt = now): Learned {
    const s = this.state(key, now);
    s.inflight = Math.max(0, s.inflight - 1);
    s.answered = true;
    const learned: Learned = { throttled, policyChanged: false, decreased: false };
    if (limit.remaining !== undefined && limit.resetMs !== undefined) {
      s.remaining = limit.remaining - s.inflight;
      s.resetAt = now + limit.resetMs;
    }
    if (limit.policy && !samePolicy(s.policy, limit.policy)) {
      s.policy = limit.policy;
      s.policyAt = now;
      this.applyPolicy(s, limit.policy);
      learned.policyChanged = true;
    }
    this.countSre(s, now, throttled ? 0 : 1, 0);
    if (!throttled) {
      this.grow(s, now);
      return learned;
    }
    const waitMs = limit.retryAfterMs ?? (limit.remaining === 0 ? limit.resetMs : undefined);
    if (waitMs !== undefined) {
      learned.retryAfterMs = waitMs;
      const until = now + waitMs + this.random() * this.jitter * waitMs;
      if (until > s.pausedUntil) {
        s.pausedUntil = until;
        // The restart: one request at the pause's end, then paced.
        s.tokens = Math.min(1, s.capacity);
        s.tokensAt = until;
      }
      learned.pausedUntil = s.pausedUntil;
    } else {
      s.tokens = 0;
      s.tokensAt = Math.max(now, s.tokensAt);
    }
    // One cut per round: not again for requests sent before the last cut, nor for those
    // sent in excess of a policy not yet known (the pause handles them).
    if (sentAt > s.decreasedAt && sentAt > s.policyAt) {
      const measured = this.measuredRate(s, now);
      const base = Math.min(Math.min(s.policyRate, s.aimdRate), Math.max(measured, this.minRate));
      s.lastMaxRate = base;
      s.aimdRate = Math.max(this.minRate, base * this.decrease);
      s.decreasedAt = now;
      s.increasedAt = now;
      learned.decreased = true;
      if (s.policyRate === Infinity) s.capacity = 1;
    }
    return learned;
  }

  /**
   * SRE local rejection: counts a request of `key` and says whether to reject it locally,
   * with probability `max(0, (requests - k * accepts) / (requests + 1))` over the window.
   * Always false without the `rejectLocally` option.
   */
  rejectLocally(key: string, now: number): boolean {
    const sre = this.options.rejectLocally;
    if (!sre) return false;
    const s = this.state(key, now);
    const p = this.rejectProbability(key, now);
    this.countSre(s, now, 0, 1);
    return this.random() < p;
  }

  /** The current SRE rejection probability of `key` (0 without the option). */
  rejectProbability(key: string, now: number): number {
    const sre = this.options.rejectLocally;
    if (!sre) return 0;
    const s = this.state(key, now);
    this.rollSre(s, now);
    let requests = 0;
    let accepts = 0;
    for (let i = 0; i < SRE_BUCKETS; i++) {
      requests += s.sreRequests[i] as number;
      accepts += s.sreAccepts[i] as number;
    }
    return Math.max(0, (requests - sre.k * accepts) / (requests + 1));
  }

  /** What the brain holds of `key` at `now`. */
  insight(key: string, now: number): KeyInsight {
    const s = this.state(key, now);
    const rate = Math.min(s.policyRate, s.aimdRate);
    const insight: KeyInsight = { burst: s.capacity, pausedForMs: Math.max(0, s.pausedUntil - now) };
    if (s.policy) insight.policy = s.policy;
    if (rate < Infinity) {
      insight.ratePerSec = rate * 1000;
      insight.rateSource = s.aimdRate < s.policyRate ? 'aimd' : 'policy';
    }
    if (s.remaining !== undefined && now < s.resetAt) insight.remaining = Math.max(0, s.remaining);
    return insight;
  }

  /** The keys seen, in first-seen order. */
  keyNames(): string[] {
    return [...this.keys.keys()];
  }

  private state(key: string, now: number): KeyState {
    let s = this.keys.get(key);
    if (!s) {
      s = {
        policy: undefined,
        policyRate: Infinity,
        aimdRate: Infinity,
        lastMaxRate: Infinity,
        decreasedAt: -Infinity,
        increasedAt: now,
        policyAt: -Infinity,
        answered: false,
        capacity: 1,
        tokens: 1,
        tokensAt: now,
        remaining: undefined,
        resetAt: -Infinity,
        pausedUntil: -Infinity,
        inflight: 0,
        sends: [],
        sreRequests: new Float64Array(SRE_BUCKETS),
        sreAccepts: new Float64Array(SRE_BUCKETS),
        sreBucketAt: new Float64Array(SRE_BUCKETS).fill(-Infinity),
      };
      const initial = this.options.initial;
      if (initial) {
        s.policy = { ...initial, field: 'initial' };
        this.applyPolicy(s, s.policy);
        s.tokens = s.capacity;
      }
      this.keys.set(key, s);
    }
    return s;
  }

  private applyPolicy(s: KeyState, policy: { limit: number; windowMs: number; burst?: number }): void {
    const fresh = s.policyRate === Infinity && s.aimdRate === Infinity;
    s.policyRate = (policy.limit / policy.windowMs) * this.safety;
    s.capacity = Math.max(1, Math.floor(policy.burst ?? policy.limit));
    // A policy first learned: the bucket starts as full as the server said, or else empty.
    if (fresh) s.tokens = Math.min(s.capacity, s.remaining ?? 0);
    else s.tokens = Math.min(s.tokens, s.capacity);
    if (s.aimdRate >= s.policyRate) s.aimdRate = Infinity;
  }

  /** Additive increase after an accepted response, up to the policy's rate (or twice the measured rate without one). */
  private grow(s: KeyState, now: number): void {
    if (s.aimdRate === Infinity) return;
    const elapsed = Math.max(0, now - s.increasedAt) / 1000;
    s.increasedAt = now;
    const base = Math.max(s.lastMaxRate < Infinity ? s.lastMaxRate : s.aimdRate, MIN_INCREASE_BASE);
    const step = this.increase * base * elapsed;
    let rate = s.aimdRate + step;
    if (s.policyRate === Infinity) rate = Math.min(rate, Math.max(2 * this.measuredRate(s, now), s.aimdRate));
    s.aimdRate = rate >= s.policyRate ? Infinity : rate;
  }

  /** Sends in the last second, per ms. */
  private measuredRate(s: KeyState, now: number): number {
    let i = 0;
    while (i < s.sends.length && (s.sends[i] as number) <= now - RATE_WINDOW_MS) i++;
    if (i > 0) s.sends.splice(0, i);
    return s.sends.length / RATE_WINDOW_MS;
  }

  private rollSre(s: KeyState, now: number): number {
    const bucketMs = (this.options.rejectLocally?.windowMs ?? 120_000) / SRE_BUCKETS;
    const start = Math.floor(now / bucketMs) * bucketMs;
    const index = Math.floor(now / bucketMs) % SRE_BUCKETS;
    for (let i = 0; i < SRE_BUCKETS; i++) {
      if ((s.sreBucketAt[i] as number) <= start - SRE_BUCKETS * bucketMs) {
        s.sreRequests[i] = 0;
        s.sreAccepts[i] = 0;
      }
    }
    if (s.sreBucketAt[index] !== start) {
      s.sreBucketAt[index] = start;
      s.sreRequests[index] = 0;
      s.sreAccepts[index] = 0;
    }
    return index;
  }

  private countSre(s: KeyState, now: number, accepts: number, requests: number): void {
    if (!this.options.rejectLocally) return;
    const index = this.rollSre(s, now);
    s.sreRequests[index] = (s.sreRequests[index] as number) + requests;
    s.sreAccepts[index] = (s.sreAccepts[index] as number) + accepts;
  }
}

function samePolicy(a: KeyInsight['policy'], b: ServerPolicy): boolean {
  return a !== undefined && a.limit === b.limit && a.windowMs === b.windowMs && a.burst === b.burst;
}
