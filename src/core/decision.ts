import type { CompositeMeter, Meter } from '../algorithms/index.js';
import type { Limits, NamedLimits } from './policy.js';

/**
 * The answer to one request. All times are whole milliseconds, rounded up.
 * - `allowed`: whether the request was admitted (a denied request changes no state).
 * - `limit`: the most units the key can hold at once (`burst ?? limit` for token bucket
 *   and GCRA, `limit` for the window algorithms); Infinity for an unlimited tier.
 * - `remaining`: units that could still be admitted right now, after this decision.
 * - `retryAfterMs`: 0 when admitted; otherwise the wait until this same request would be
 *   admitted (if nothing else arrives), or Infinity when its cost exceeds what the policy
 *   can ever admit.
 * - `resetMs`: the wait until the key is back to its full quota.
 * - `limits` (a limiter of several limits only): each limit's own answer, in order.
 *
 * With several limits, `limit` and `resetMs` are the binding limit's (admitted: the one
 * with the least remaining; denied: the one with the longest wait; ties: the first listed),
 * `remaining` the least of the limits' (so 0 when a unit request is denied), `retryAfterMs`
 * the longest wait of the limits that deny.
 *
 * A limiter in shadow mode (`enforce: false`) admits what it would have denied: such a
 * decision is `allowed: true` with `shadowDenied: true`, and every other figure (`remaining`,
 * `retryAfterMs`, `resetMs`, `limit`, `limits`) the denial's, as an enforcing limiter would
 * have answered; it took nothing, as that denial would not have.
 */
export interface Decision {
  allowed: boolean;
  limit: number;
  remaining: number;
  retryAfterMs: number;
  resetMs: number;
  limits?: readonly LimitDecision[];
  /** Present (true) only on a denial a limiter in shadow mode let through; see above. */
  shadowDenied?: true;
}

/**
 * One limit's own answer within a decision of several: `allowed` whether it alone would
 * admit the request, `remaining` after the decision, `retryAfterMs` its own wait (0 when it
 * would admit), `resetMs` its wait to full quota; `name` and `limit` (capacity) are the limit's.
 */
export interface LimitDecision {
  name: string;
  allowed: boolean;
  limit: number;
  remaining: number;
  retryAfterMs: number;
  resetMs: number;
}

/**
 * Takes `cost` units from `slot` at `now` (the slot already refreshed to it) and answers
 * in full. One function for every limiter that keeps its state in meter columns (memory,
 * shared), so their decisions cannot drift apart.
 */
export function meterDecision(meter: Meter, limits: Limits, slot: number, now: number, cost: number): Decision {
  const allowed = meter.take(slot, now, cost);
  return {
    allowed,
    limit: limits.capacity,
    remaining: meter.remaining(slot, now),
    retryAfterMs: allowed ? 0 : meter.waitFor(slot, now, cost),
    resetMs: meter.untilFull(slot, now),
  };
}

/**
 * {@link meterDecision} for a limiter of several limits: takes `cost` from every part of
 * `meter` or from none, and answers with the binding limit's figures and each limit's own
 * (see {@link Decision}). `list` holds the limits of `meter.parts`, in the same order.
 */
export function compositeDecision(
  meter: CompositeMeter,
  list: readonly NamedLimits[],
  slot: number,
  now: number,
  cost: number,
): Decision {
  const allowed = meter.take(slot, now, cost);
  const deniedCost = allowed ? 0 : cost;
  const { parts } = meter;
  if (list.length === 2) {
    // The common composite, without a loop or an array to fill: measured faster (docs/bench.md, "Several limits").
    const a = limitDecision(parts[0] as Meter, list[0] as NamedLimits, slot, now, deniedCost);
    const b = limitDecision(parts[1] as Meter, list[1] as NamedLimits, slot, now, deniedCost);
    return bindingDecision(allowed, binds(allowed, b, a) ? b : a, Math.min(a.remaining, b.remaining), [a, b]);
  }
  // Sized at once: growing an empty array by push allocates room for 17 entries first.
  const limits = new Array<LimitDecision>(list.length);
  for (let i = 0; i < list.length; i++) {
    limits[i] = limitDecision(parts[i] as Meter, list[i] as NamedLimits, slot, now, deniedCost);
  }
  return combineDecisions(allowed, limits);
}

/** One part's answer; `deniedCost` is the cost it was asked for when the composite denied (0 when admitted). */
function limitDecision(part: Meter, entry: NamedLimits, slot: number, now: number, deniedCost: number): LimitDecision {
  const retryAfterMs = deniedCost === 0 ? 0 : part.waitFor(slot, now, deniedCost);
  return {
    name: entry.name,
    allowed: retryAfterMs === 0,
    limit: entry.capacity,
    remaining: part.remaining(slot, now),
    retryAfterMs,
    resetMs: part.untilFull(slot, now),
  };
}

/**
 * The decision of several limits from each one's answer: the rule every backend shares (the
 * Redis script returns the parts, this combines them). `limits` is kept as given.
 */
export function combineDecisions(allowed: boolean, limits: readonly LimitDecision[]): Decision {
  const binding = limits[bindingIndex(allowed, limits)] as LimitDecision;
  let remaining = Infinity;
  for (const limit of limits) remaining = Math.min(remaining, limit.remaining);
  return bindingDecision(allowed, binding, remaining, limits);
}

/** The decision of several limits: `binding`'s figures, `remaining` the least of the limits', `limits` kept as given. */
function bindingDecision(
  allowed: boolean,
  binding: LimitDecision,
  remaining: number,
  limits: readonly LimitDecision[],
): Decision {
  return {
    allowed,
    limit: binding.limit,
    remaining,
    retryAfterMs: allowed ? 0 : binding.retryAfterMs,
    resetMs: binding.resetMs,
    limits,
  };
}

/**
 * The index in `limits` of the binding limit (see {@link Decision}): admitted, the one with
 * the least remaining; denied, the one with the longest wait; ties, the first listed.
 */
export function bindingIndex(allowed: boolean, limits: readonly LimitDecision[]): number {
  let binding = 0;
  for (let i = 1; i < limits.length; i++) {
    if (binds(allowed, limits[i] as LimitDecision, limits[binding] as LimitDecision)) binding = i;
  }
  return binding;
}

/** Whether `limit`, listed after `best`, binds instead of it: admitted, less remaining; denied, a longer wait (ties keep the first). */
function binds(allowed: boolean, limit: LimitDecision, best: LimitDecision): boolean {
  return allowed ? limit.remaining < best.remaining : limit.retryAfterMs > best.retryAfterMs;
}

/** How a limiter answers from its meter for `cost` units of the key in `slot` at `now`. */
export type DecideFn = (slot: number, now: number, cost: number) => Decision;

/**
 * The decision function of `meter`, built by `createLimitsMeter` over `list`:
 * {@link meterDecision} for one limit (`limits` its own), {@link compositeDecision} for several.
 */
export function decisionOf(meter: Meter, list: readonly NamedLimits[], limits: Limits): DecideFn {
  if (list.length === 1) return (slot, now, cost) => meterDecision(meter, limits, slot, now, cost);
  return (slot, now, cost) => compositeDecision(meter as CompositeMeter, list, slot, now, cost);
}
