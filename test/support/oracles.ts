import type { Algorithm, Decision, Policy } from '../../src/index.js';

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
    const allowed = this.admits(this.log, at, cost);
    if (allowed && cost > 0) this.log.push({ at, cost });
    return {
      allowed,
      limit: this.capacity,
      remaining: this.largestAdmitted(at),
      retryAfterMs: allowed ? 0 : cost > this.capacity ? Infinity : this.firstAdmitting(at, cost, 1),
      resetMs: this.firstAdmitting(at, this.capacity, 0),
    };
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
