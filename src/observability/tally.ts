import type { DecisionEvent, DecisionListener, DecisionSource, OutcomeCounter } from '../core/decision-event.js';
import { OUTCOMES } from '../core/decision-event.js';
import { invalidOption } from '../core/options.js';

// What the Prometheus and OpenTelemetry writers share: a limiter as they read it, and the
// tally it counts into. A ratelab limiter counts each decision into the tally's row itself
// (an OutcomeCounter: one increment, no event), so metrics on keep the memory limiter's
// speed; the exporters' own calls, which hash label sets, run at collect time only. Label
// values come from the registration's `name` and the limiters' own names, never from keys.

/**
 * A limiter as the metrics read it: its events (every limiter), its outcome counter (every
 * ratelab limiter; without one it is counted through a listener), and what some limiters
 * add, read at collect time: `size` (live keys: memory, shared), `name` (the tier label),
 * `openBreakers()` (the Redis nodes whose circuit breaker is open now).
 */
export interface ObservedLimiter extends Pick<DecisionSource, 'addDecisionListener' | 'listenerErrors'> {
  addOutcomeCounter?(counter: OutcomeCounter): () => void;
  readonly size?: number;
  readonly name?: string | undefined;
  openBreakers?(): readonly string[];
}

/** What `registerMetrics` and `registerOtelMetrics` return. */
export interface MetricsHandle {
  /** Removes the limiter's listener and its gauges; its counts stay (counters never go down). Idempotent. */
  unregister(): void;
}

/**
 * The decision-latency buckets, seconds: 100 us (a loopback Redis round trip) to 250 ms
 * (past the Redis limiter's default 50 ms timeout, where decisions go to the fail mode).
 */
export const DEFAULT_DURATION_BUCKETS: readonly number[] = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
];

/** The labels of a decision's series but its outcome. */
export interface SeriesLabels {
  readonly limiter: string;
  readonly tier: string;
}

/** What an exporter does with an event beyond counting it. */
export interface TallyHooks {
  /** An asynchronous limiter's decision time, in seconds. */
  duration?: (labels: SeriesLabels, seconds: number) => void;
  /** A denial (`denied`, `shadow-denied`, `failed-closed`). */
  denial?: (labels: SeriesLabels, event: DecisionEvent) => void;
}

/** Not an event's `limiter` (a string or undefined): the listener has seen no event yet. */
const NOT_YET = Symbol('no event yet');

/** One series' counts: per outcome, in {@link OUTCOMES} order. */
export interface TallyRow {
  readonly limiter: string;
  readonly tier: string;
  readonly counts: Float64Array;
  /** `listenerErrors` of the limiters unregistered from this row (a counter never goes down). */
  retiredListenerErrors: number;
}

/**
 * A registered limiter: its labels, and the nodes it has reported open (then 0 once closed).
 * `tier` is the limiter's `name` when it shows one, else what its first event says; until
 * then undefined, and its gauges are left out (a limiter that decided nothing has no keys
 * and no listener errors).
 */
export interface Registration {
  readonly limiter: ObservedLimiter;
  readonly name: string;
  tier: string | undefined;
  readonly breakerNodes: Set<string>;
}

/**
 * The counts of every limiter registered on one registry (or meter), by `limiter` and `tier`:
 * limiters of the same labels add up (e.g. one per worker), and a row outlives the
 * registrations that fed it, so counters never go down.
 */
export class Tally {
  readonly rows = new Map<string, TallyRow>();
  readonly registrations: Registration[] = [];

  row(limiter: string, tier: string): TallyRow {
    const id = `${limiter}\u0000${tier}`;
    let row = this.rows.get(id);
    if (row === undefined) {
      row = { limiter, tier, counts: new Float64Array(OUTCOMES.length), retiredListenerErrors: 0 };
      this.rows.set(id, row);
    }
    return row;
  }

  /**
   * Adds `limiter` under `name`: its listener counts into the rows and hands durations and
   * denials to `hooks` (its exporter's histogram, span events). Returns the function that
   * removes it (the listener, its gauges).
   */
  register(limiter: ObservedLimiter, name: string, hooks: TallyHooks): () => void {
    checkLimiter(limiter);
    if (this.registrations.some((r) => r.limiter === limiter && r.name === name))
      throw invalidOption('limiter', `already registered as "${name}" here (its decisions would count twice)`, name);
    const registration: Registration = { limiter, name, tier: tierOf(limiter), breakerNodes: new Set() };
    this.registrations.push(registration);
    if (registration.tier !== undefined) this.row(name, registration.tier);
    const remove =
      typeof limiter.addOutcomeCounter === 'function'
        ? limiter.addOutcomeCounter(this.counter(registration, hooks))
        : limiter.addDecisionListener(this.listener(registration, hooks));
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      remove();
      const at = this.registrations.indexOf(registration);
      if (at >= 0) this.registrations.splice(at, 1);
      const errors = listenerErrorsOf(limiter);
      if (registration.tier !== undefined) this.row(name, registration.tier).retiredListenerErrors += errors;
    };
  }

  /**
   * The counter of a limiter that counts for itself: its row's counts (the tier is its
   * `name`, '' without one, known from the start), and the hooks only where the exporter has them.
   */
  private counter(registration: Registration, hooks: TallyHooks): OutcomeCounter {
    const tier = registration.tier ?? '';
    registration.tier = tier;
    const labels: SeriesLabels = { limiter: registration.name, tier };
    const { duration, denial } = hooks;
    return {
      counts: this.row(registration.name, tier).counts,
      timed: duration === undefined ? undefined : (ns) => duration(labels, ns / 1e9),
      denied: denial === undefined ? undefined : (event) => denial(labels, event),
    };
  }

  /**
   * The listener of a limiter without an outcome counter. Never throws, whatever it is given: a malformed event (not an object, an unknown
   * outcome, a getter that throws) counts nothing; a non-string `limiter` is the unnamed
   * tier ''. The common event costs a few compares and one increment: the outcome by
   * identity against the literals (the limiters send those), the tier's row looked up only
   * when the tier changes, the hooks called only for an event that has their part.
   */
  private listener(registration: Registration, hooks: TallyHooks): DecisionListener {
    const { duration, denial } = hooks;
    let lastNamed: unknown = NOT_YET;
    let counts: Float64Array = new Float64Array(OUTCOMES.length);
    let labels: SeriesLabels = { limiter: registration.name, tier: '' };
    return (event) => {
      try {
        const outcome = event.outcome;
        const index =
          outcome === 'allowed'
            ? 0
            : outcome === 'denied'
              ? 1
              : outcome === 'shadow-denied'
                ? 2
                : outcome === 'failed-open'
                  ? 3
                  : outcome === 'failed-closed'
                    ? 4
                    : -1;
        if (index < 0) return;
        const named: unknown = event.limiter;
        if (named !== lastNamed) {
          const tier = typeof named === 'string' ? named : '';
          counts = this.row(registration.name, tier).counts;
          labels = { limiter: registration.name, tier };
          registration.tier = tier;
          lastNamed = named;
        }
        (counts[index] as number) += 1;
        if (duration !== undefined) {
          const ns: unknown = event.durationNs;
          if (typeof ns === 'number' && ns >= 0 && ns < Infinity) duration(labels, ns / 1e9);
        }
        if (denial !== undefined && index !== 0 && index !== 3) denial(labels, event);
      } catch {
        // A malformed event: not counted; the decision is the limiter's.
      }
    };
  }

  /** Each registered limiter's live keys (`size`), summed per label pair; limiters without `size` are left out. */
  keys(): Map<TallyRow, number> {
    const sums = new Map<TallyRow, number>();
    for (const r of this.registrations) {
      const size = sizeOf(r.limiter);
      if (size === undefined || r.tier === undefined) continue;
      const row = this.row(r.name, r.tier);
      sums.set(row, (sums.get(row) ?? 0) + size);
    }
    return sums;
  }

  /** Listener errors per row: the registered limiters' `listenerErrors` and the retired ones. */
  listenerErrors(): Map<TallyRow, number> {
    const sums = new Map<TallyRow, number>();
    for (const row of this.rows.values()) sums.set(row, row.retiredListenerErrors);
    for (const r of this.registrations) {
      if (r.tier === undefined) continue;
      const row = this.row(r.name, r.tier);
      sums.set(row, (sums.get(row) ?? 0) + listenerErrorsOf(r.limiter));
    }
    return sums;
  }

  /** Breaker state per (`limiter` label, node): 1 open now, 0 once closed (a node appears from its first opening). */
  breakers(): Map<string, Map<string, number>> {
    const byName = new Map<string, Map<string, number>>();
    for (const r of this.registrations) {
      if (typeof r.limiter.openBreakers !== 'function') continue;
      let open: readonly string[];
      try {
        open = r.limiter.openBreakers();
      } catch {
        continue;
      }
      for (const node of open) r.breakerNodes.add(node);
      let nodes = byName.get(r.name);
      if (nodes === undefined) byName.set(r.name, (nodes = new Map()));
      for (const node of r.breakerNodes) nodes.set(node, Math.max(nodes.get(node) ?? 0, open.includes(node) ? 1 : 0));
    }
    return byName;
  }
}

/** `INVALID_ARGUMENT` unless `limiter` offers decision events. */
function checkLimiter(limiter: unknown): void {
  if (typeof (limiter as Partial<DecisionSource> | null)?.addDecisionListener !== 'function')
    throw invalidOption('limiter', 'expected a ratelab limiter (one with addDecisionListener)', limiter);
}

function tierOf(limiter: ObservedLimiter): string | undefined {
  const name: unknown = limiter.name;
  return typeof name === 'string' ? name : undefined;
}

function sizeOf(limiter: ObservedLimiter): number | undefined {
  const size: unknown = limiter.size;
  return typeof size === 'number' && size >= 0 ? size : undefined;
}

function listenerErrorsOf(limiter: ObservedLimiter): number {
  const errors: unknown = limiter.listenerErrors;
  return typeof errors === 'number' && errors >= 0 ? errors : 0;
}

/** `INVALID_ARGUMENT` unless `name` (the `limiter` label) is a non-empty string. */
export function checkName(name: unknown): string {
  if (typeof name !== 'string' || name === '')
    throw invalidOption('name', 'expected a non-empty string (the limiter label)', name);
  return name;
}

/** `buckets` as given (undefined: the default), or `INVALID_ARGUMENT` unless ascending seconds > 0. */
export function checkBuckets(buckets: unknown): readonly number[] | undefined {
  if (buckets === undefined) return undefined;
  const ascending =
    Array.isArray(buckets) &&
    buckets.length > 0 &&
    buckets.every(
      (b: unknown, i) => typeof b === 'number' && b > 0 && b < Infinity && (i === 0 || b > (buckets[i - 1] as number)),
    );
  if (!ascending) throw invalidOption('buckets', 'expected ascending numbers of seconds > 0', buckets);
  return buckets as readonly number[];
}
