import type { DecisionListener, DecisionSource, Outcome } from '../core/decision-event.js';
import { OUTCOMES } from '../core/decision-event.js';
import { invalidOption } from '../core/options.js';

// What the Prometheus and OpenTelemetry writers share: a limiter as they read it, and the
// tally its listener keeps. A decision costs the listener a few field reads and one array
// increment (the exporters' own calls, which hash label sets, run at collect time only), so
// metrics on keep the memory limiter's speed; label values come from the registration's
// `name` and the limiters' own names, never from keys.

/**
 * A limiter as the metrics read it: its events (every limiter), and what some limiters add,
 * read at collect time: `size` (live keys: memory, shared), `name` (the tier label before the
 * first event says it), `openBreakers()` (the Redis nodes whose circuit breaker is open now).
 */
export interface ObservedLimiter extends DecisionSource {
  readonly size?: number;
  readonly name?: string;
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

/** What an exporter does with each event beyond counting it: `seconds`, the decision time of an asynchronous limiter's. */
export type Observe = (labels: SeriesLabels, seconds: number | undefined, event: object) => void;

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

const OUTCOME_INDEX: Readonly<Record<string, number>> = Object.assign(
  Object.create(null) as Record<string, number>,
  Object.fromEntries(OUTCOMES.map((outcome, i) => [outcome, i])),
);

/** The outcomes a span event reports: the refusals, and what a refusal would have been in shadow. */
export const DENIALS: ReadonlySet<Outcome> = new Set<Outcome>(['denied', 'failed-closed', 'shadow-denied']);

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
   * Adds `limiter` under `name`: its listener counts into the rows and hands each duration
   * (seconds, asynchronous limiters) and each event to `observe` (its exporter's histogram,
   * span events). Returns the function that removes it (the listener, its gauges).
   */
  register(limiter: ObservedLimiter, name: string, observe: Observe | undefined): () => void {
    checkLimiter(limiter);
    if (this.registrations.some((r) => r.limiter === limiter && r.name === name))
      throw invalidOption('limiter', `already registered as "${name}" here (its decisions would count twice)`, name);
    const registration: Registration = { limiter, name, tier: tierOf(limiter), breakerNodes: new Set() };
    this.registrations.push(registration);
    if (registration.tier !== undefined) this.row(name, registration.tier);
    const remove = limiter.addDecisionListener(this.listener(registration, observe));
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
   * Never throws, whatever it is given: a malformed event (not an object, an unknown
   * outcome) counts nothing; a non-string `limiter` is the unnamed tier ''.
   */
  private listener(registration: Registration, observe: Observe | undefined): DecisionListener {
    let lastTier: string | undefined;
    let lastCounts: Float64Array | undefined;
    let labels: SeriesLabels | undefined;
    return (event) => {
      try {
        if (typeof event !== 'object' || event === null) return;
        const outcome: unknown = event.outcome;
        const index = typeof outcome === 'string' ? OUTCOME_INDEX[outcome] : undefined;
        if (index === undefined) return;
        const named: unknown = event.limiter;
        const tier = typeof named === 'string' ? named : '';
        if (tier !== lastTier || lastCounts === undefined) {
          lastCounts = this.row(registration.name, tier).counts;
          lastTier = tier;
          labels = { limiter: registration.name, tier };
          registration.tier = tier;
        }
        (lastCounts[index] as number) += 1;
        if (observe !== undefined) {
          const ns: unknown = event.durationNs;
          observe(
            labels as SeriesLabels,
            typeof ns === 'number' && ns >= 0 && ns < Infinity ? ns / 1e9 : undefined,
            event,
          );
        }
      } catch {
        // A malformed event (a getter that throws): not counted; the decision is the limiter's.
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
