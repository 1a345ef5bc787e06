import type { Algorithm, Decision, LimitDecision, LimitSpec, Policy } from '../../src/index.js';

/** An admitted request, as the oracles remember it. */
interface Admitted {
  at: number;
  cost: number;
}

/** Would `cost` more units be admitted at `at`, given everything admitted before? */
type Admits = (log: readonly Admitted[], at: number, cost: number) => boolean;

/**
 * A deliberately naive model of an algorithm, for property tests: it remembers every
 * admitted request and decides from the algorithm's definition alone. Every Decision
 * field is found by brute force from that one rule, so none of the limiter's arithmetic
 * is reused: `remaining` is the largest cost it would admit now, `retryAfterMs` the first
 * whole ms at which it would admit this cost, `resetMs` the first at which it would admit
 * the full capacity.
 */
export class Oracle {
  private readonly log: Admitted[] = [];
  private readonly horizon: number;

  constructor(
    private readonly capacity: number,
    private readonly admits: Admits,
    policy: Policy,
  ) {
    // Every algorithm is back to full quota within this many ms of its last admission.
    this.horizon = Math.ceil((capacity * policy.windowMs) / policy.limit) + 2 * policy.windowMs + 1;
  }

  consume(at: number, cost: number): Decision {
    return this.decideAs(at, cost, this.admitsNow(at, cost));
  }

  /** Whether it would admit `cost` units at `at` (changing nothing). */
  admitsNow(at: number, cost: number): boolean {
    return this.admits(this.log, at, cost);
  }

  /**
   * The decision when `allowed` was decided elsewhere (a composite admits only what all its
   * limits admit): remembers the request if admitted, then answers as {@link consume}.
   */
  decideAs(at: number, cost: number, allowed: boolean): Decision {
    if (allowed && cost > 0) this.log.push({ at, cost });
    return {
      allowed,
      limit: this.capacity,
      remaining: this.largestAdmitted(at),
      retryAfterMs: allowed ? 0 : cost > this.capacity ? Infinity : this.firstAdmitting(at, cost, 1),
      resetMs: this.firstAdmitting(at, this.capacity, 0),
    };
  }

  /** The wait until it alone would admit `cost` at `at`: 0 now, Infinity above its capacity. */
  waitFor(at: number, cost: number): number {
    if (this.admitsNow(at, cost)) return 0;
    return cost > this.capacity ? Infinity : this.firstAdmitting(at, cost, 1);
  }

  /** The admitted requests so far. */
  get admitted(): readonly Admitted[] {
    return this.log;
  }

  private largestAdmitted(at: number): number {
    let cost = 0;
    while (cost < this.capacity && this.admits(this.log, at, cost + 1)) cost += 1;
    return cost;
  }

  private firstAdmitting(at: number, cost: number, from: number): number {
    for (let wait = from; wait <= this.horizon; wait++) {
      if (this.admits(this.log, at + wait, cost)) return wait;
    }
    throw new Error(`oracle: nothing admits cost ${cost} within ${this.horizon} ms of ${at}`);
  }
}

const sum = (entries: readonly Admitted[]) => entries.reduce((total, entry) => total + entry.cost, 0);

/** Admitted units in the sliding window `(at - windowMs, at]`. */
export function inWindow(log: readonly Admitted[], at: number, windowMs: number): number {
  return sum(log.filter((entry) => entry.at > at - windowMs && entry.at <= at));
}

/** Admitted units in the aligned window `[k * windowMs, (k + 1) * windowMs)`. */
function inAlignedWindow(log: readonly Admitted[], k: number, windowMs: number): number {
  return sum(log.filter((entry) => Math.floor(entry.at / windowMs) === k));
}

/** Admitted units in the aligned window that holds `at`. */
export function inWindowOf(log: readonly Admitted[], at: number, windowMs: number): number {
  return inAlignedWindow(log, Math.floor(at / windowMs), windowMs);
}

/** The brute-force model of `algorithm` under `policy`. */
export function oracleFor(algorithm: Algorithm, policy: Policy): Oracle {
  const { limit, windowMs: w } = policy;
  const capacity = algorithm === 'token-bucket' || algorithm === 'gcra' ? (policy.burst ?? limit) : limit;
  const rules: Record<Algorithm, Admits> = {
    'sliding-log': (log, at, cost) => inWindow(log, at, w) + cost <= limit,
    'fixed-window': (log, at, cost) => inWindowOf(log, at, w) + cost <= limit,
    'sliding-counter': (log, at, cost) => {
      const k = Math.floor(at / w);
      const elapsed = at - k * w;
      // prev * (W - elapsed) / W + cur + cost <= limit, multiplied through by W.
      return inAlignedWindow(log, k - 1, w) * (w - elapsed) + (inAlignedWindow(log, k, w) + cost) * w <= limit * w;
    },
    // A bucket starting full is short, at `at`, of the largest excess of units admitted
    // since some earlier admission over what refilled since then (Reich's formula for a
    // queue drained at the refill rate). In units of 1/windowMs token, so all integers.
    'token-bucket': (log, at, cost) => tokenBacklog(log, at, limit, w) + cost * w <= capacity * w,
    gcra: (log, at, cost) => tokenBacklog(log, at, limit, w) + cost * w <= capacity * w,
  };
  return new Oracle(capacity, rules[algorithm], policy);
}

function tokenBacklog(log: readonly Admitted[], at: number, limit: number, windowMs: number): number {
  let backlog = 0;
  let since = 0;
  for (let i = log.length - 1; i >= 0; i--) {
    const entry = log[i] as Admitted;
    since += entry.cost * windowMs;
    backlog = Math.max(backlog, since - limit * (at - entry.at));
  }
  return backlog;
}

/**
 * The brute-force model of several limits on one key: the conjunction of one oracle per
 * limit. A request is admitted when every oracle would admit it, and then every oracle
 * remembers it. Each limit's answer is its oracle's alone; the binding limit is found by
 * the rule as documented (admitted: least remaining; denied: longest wait; ties: first).
 */
export class CompositeOracle {
  private readonly parts: { name: string; oracle: Oracle }[];

  constructor(algorithm: Algorithm, list: readonly LimitSpec[]) {
    this.parts = list.map((spec, i) => ({
      name: spec.name ?? `l${i}`,
      oracle: oracleFor(spec.algorithm ?? algorithm, spec),
    }));
  }

  consume(at: number, cost: number): Decision {
    const allowed = this.parts.every(({ oracle }) => oracle.admitsNow(at, cost));
    const waits = this.parts.map(({ oracle }) => (allowed ? 0 : oracle.waitFor(at, cost)));
    const limits: LimitDecision[] = this.parts.map(({ name, oracle }, i) => {
      const own = oracle.decideAs(at, cost, allowed);
      return {
        name,
        allowed: waits[i] === 0,
        limit: own.limit,
        remaining: own.remaining,
        retryAfterMs: waits[i] as number,
        resetMs: own.resetMs,
      };
    });
    const remainders = limits.map((limit) => limit.remaining);
    const least = Math.min(...remainders);
    const longest = Math.max(...waits);
    const binding = limits[allowed ? remainders.indexOf(least) : waits.indexOf(longest)] as LimitDecision;
    return {
      allowed,
      limit: binding.limit,
      remaining: least,
      retryAfterMs: allowed ? 0 : longest,
      resetMs: binding.resetMs,
      limits,
    };
  }
}
