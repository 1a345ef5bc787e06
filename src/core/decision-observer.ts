import { bindingIndex, type Decision } from './decision.js';
import type { DecisionEvent, DecisionListener, ObservedOptions, Outcome, OutcomeCounter } from './decision-event.js';
import { OUTCOMES } from './decision-event.js';
import type { FailMode, ReasonedDecision } from './fail-over.js';
import { tightestLimit } from './limit-list.js';
import { invalidOption } from './options.js';
import type { Algorithm, NamedLimits } from './policy.js';
import { isThenable } from './thenable.js';

// The one implementation of decision events and shadow mode (src/core/decision-event.ts
// says the contract), which every limiter holds one of. A limiter checks `active` once per
// decision and, only when it is set, hands the decision to `settle`: without a listener, a
// counter or shadow mode nothing here runs, so the decision path allocates nothing more. A
// counter alone builds no event either: `settle` adds to its counts and returns.

/** {@link ObservedOptions} checked: `INVALID_ARGUMENT` naming the field for anything else. */
export function checkObservedOptions(options: ObservedOptions | undefined): ObservedOptions {
  if (options === undefined || options === null) return {};
  const { onDecision, onError, name, enforce } = options;
  if (onDecision !== undefined && typeof onDecision !== 'function')
    throw invalidOption('onDecision', 'expected a function (event) => void', onDecision);
  if (onError !== undefined && typeof onError !== 'function')
    throw invalidOption('onError', 'expected a function (error) => void', onError);
  if (name !== undefined && (typeof name !== 'string' || name === ''))
    throw invalidOption('name', 'expected a non-empty string', name);
  if (enforce !== undefined && typeof enforce !== 'boolean')
    throw invalidOption('enforce', 'expected true or false (false: shadow mode)', enforce);
  return options;
}

/**
 * A limiter's listeners and shadow mode. `settle` turns a decision as made into the one the
 * caller gets (a denial in shadow: admitted, `shadowDenied: true`, the other figures kept)
 * and tells every listener; listeners run synchronously, in the order added, and one that
 * throws (or returns a promise that rejects) is counted and, the first time, reported.
 */
export class DecisionObserver {
  /** Whether `settle` has anything to do: a listener, a counter, or shadow mode. The limiters' one check per decision. */
  active = false;
  /**
   * Whether all there is to do is count (counters, no listener, enforcing): then a limiter
   * that answers a bare boolean (`allow`) may skip the Decision and call {@link countBare},
   * except for a denial while {@link denialsTold}, which `settle` must be given in full.
   */
  countOnly = false;
  /** Whether a counter has a `denied` hook (it takes the denial's event). */
  denialsTold = false;
  /** `false`: shadow mode. */
  readonly enforce: boolean;
  /** The `name` option: events' `limiter`. */
  readonly name: string | undefined;
  /** Listener calls that threw (or whose promise rejected), since creation. */
  listenerErrors = 0;
  /** Replaced, never changed in place: a listener that removes itself (or another) mid-call leaves this call's round intact. */
  private listeners: readonly DecisionListener[];
  /** Replaced, never changed in place, as `listeners`. */
  private counters: readonly OutcomeCounter[] = [];
  private readonly onError: (error: unknown) => void;
  private reported = false;
  /** Events' `limit` when the decision lists no limits: the one limit's name, or of several the tightest's (a cached denial). */
  private readonly soleLimit: string;

  /**
   * `options` checked by {@link checkObservedOptions}; `failMode`: a limiter over a store's,
   * so that a key error is reported as the fail mode that decided it.
   */
  constructor(
    options: ObservedOptions,
    private readonly algorithm: Algorithm,
    policies: readonly NamedLimits[],
    private readonly failMode?: FailMode,
  ) {
    this.enforce = options.enforce ?? true;
    this.name = options.name;
    this.onError = options.onError ?? warnListenerError;
    this.listeners = options.onDecision === undefined ? [] : [options.onDecision];
    this.soleLimit = tightestLimit(policies).name;
    this.update();
  }

  private update(): void {
    this.active = this.listeners.length > 0 || this.counters.length > 0 || !this.enforce;
    this.countOnly = this.listeners.length === 0 && this.enforce && this.counters.length > 0;
    this.denialsTold = this.counters.some((counter) => counter.denied !== undefined);
  }

  /** Adds `listener` (once, however often it is added); returns the function that removes it. */
  add(listener: DecisionListener): () => void {
    if (typeof listener !== 'function')
      throw invalidOption('listener', 'expected a function (event) => void', listener);
    if (!this.listeners.includes(listener)) this.listeners = [...this.listeners, listener];
    this.update();
    return () => {
      this.listeners = this.listeners.filter((added) => added !== listener);
      this.update();
    };
  }

  /** Adds `counter` (once, however often it is added); returns the function that removes it. */
  addCounter(counter: OutcomeCounter): () => void {
    checkCounter(counter);
    if (!this.counters.includes(counter)) this.counters = [...this.counters, counter];
    this.update();
    return () => {
      this.counters = this.counters.filter((added) => added !== counter);
      this.update();
    };
  }

  /**
   * Counts a decision made without a Decision (`allow`), when {@link countOnly}: `allowed`
   * or `denied` (a denial only while no counter wants its event, see {@link denialsTold}).
   */
  countBare(allowed: boolean): void {
    const index = allowed ? ALLOWED : DENIED;
    const counters = this.counters;
    for (let i = 0; i < counters.length; i++) ((counters[i] as OutcomeCounter).counts[index] as number) += 1;
  }

  /**
   * The decision the caller gets for `decided`, the one made for `cost` units of `key`: a
   * denial in shadow mode becomes a new object (`allowed: true`, `shadowDenied: true`), any
   * other decision is returned as is. Listeners are told of it, with `durationNs` (the
   * asynchronous limiters') and `decided`'s outcome.
   */
  settle<D extends Decision>(key: string, cost: number, decided: D, durationNs?: number): D {
    const given: D = decided.allowed || this.enforce ? decided : { ...decided, allowed: true, shadowDenied: true };
    if (this.counters.length > 0) this.count(key, cost, decided, given, durationNs);
    if (this.listeners.length > 0) this.emit(this.eventOf(key, cost, decided, given, durationNs));
    return given;
  }

  /** Adds the decision to every counter's counts and calls the hooks that apply. */
  private count(key: string, cost: number, decided: Decision, given: Decision, durationNs: number | undefined): void {
    const outcome = this.outcomeOf(decided, reasonOf(decided));
    const index = OUTCOMES.indexOf(outcome);
    const denial = index === DENIED || index === SHADOW_DENIED || index === FAILED_CLOSED;
    let event: DecisionEvent | undefined;
    const counters = this.counters;
    for (let i = 0; i < counters.length; i++) {
      const counter = counters[i] as OutcomeCounter;
      (counter.counts[index] as number) += 1;
      try {
        if (durationNs !== undefined && counter.timed !== undefined) counter.timed(durationNs);
        if (denial && counter.denied !== undefined)
          counter.denied((event ??= this.eventOf(key, cost, decided, given, durationNs)));
      } catch (error) {
        this.listenerFailed(error);
      }
    }
  }

  private eventOf(
    key: string,
    cost: number,
    decided: Decision,
    given: Decision,
    durationNs: number | undefined,
  ): DecisionEvent {
    const { limits } = decided;
    const reason = reasonOf(decided);
    const failed =
      reason !== undefined &&
      reason !== 'redis' &&
      reason !== 'primary' &&
      reason !== 'store' &&
      reason !== 'deny-cache';
    return {
      key,
      cost,
      outcome: this.outcomeOf(decided, reason),
      algorithm: this.algorithm,
      limiter: this.name,
      limit:
        limits === undefined ? this.soleLimit : (limits[bindingIndex(decided.allowed, limits)]?.name ?? this.soleLimit),
      decision: given,
      durationNs,
      failure: failed ? ((decided as ReasonedDecision).error ?? reason) : undefined,
    };
  }

  private emit(event: DecisionEvent): void {
    const listeners = this.listeners;
    for (let i = 0; i < listeners.length; i++) {
      try {
        const returned: unknown = (listeners[i] as DecisionListener)(event);
        if (isThenable(returned)) returned.then(undefined, (error: unknown) => this.listenerFailed(error));
      } catch (error) {
        this.listenerFailed(error);
      }
    }
  }

  /**
   * What became of the request: a fail mode's admission is `failed-open`, a closed fail
   * mode's denial `failed-closed` (a key error counts as its fail mode's; `local` decides in
   * earnest, so its answers are `allowed` and `denied`, and so is an open fail mode's denial
   * of a cost no limit could ever admit); a denial in shadow mode is `shadow-denied`.
   */
  private outcomeOf(decided: Decision, reason: string | undefined): Outcome {
    const mode =
      reason === 'fail-open'
        ? 'open'
        : reason === 'fail-closed'
          ? 'closed'
          : reason === 'key-error'
            ? this.failMode
            : undefined;
    if (decided.allowed) return mode === 'open' ? 'failed-open' : 'allowed';
    if (!this.enforce) return 'shadow-denied';
    return mode === 'closed' ? 'failed-closed' : 'denied';
  }

  private listenerFailed(error: unknown): void {
    this.listenerErrors += 1;
    if (this.reported) return;
    this.reported = true;
    try {
      this.onError(error);
    } catch (failure) {
      warn(`a limiter's onError threw (${messageOf(failure)})`);
    }
  }
}

// Indexes in OUTCOMES of the outcomes the counting path names.
const ALLOWED = OUTCOMES.indexOf('allowed');
const DENIED = OUTCOMES.indexOf('denied');
const SHADOW_DENIED = OUTCOMES.indexOf('shadow-denied');
const FAILED_CLOSED = OUTCOMES.indexOf('failed-closed');

/** A store limiter's `reason` (fail modes, key errors), or undefined for the in-process limiters' decisions. */
function reasonOf(decided: Decision): string | undefined {
  return (decided as Partial<ReasonedDecision>).reason;
}

/** `INVALID_ARGUMENT` unless `counter` is an {@link OutcomeCounter}. */
function checkCounter(counter: OutcomeCounter): void {
  const counts: unknown = (counter as Partial<OutcomeCounter> | null)?.counts;
  if (!(counts instanceof Float64Array) || counts.length < OUTCOMES.length)
    throw invalidOption('counter', `expected { counts: a Float64Array of ${OUTCOMES.length} }`, counter);
  for (const hook of ['timed', 'denied'] as const) {
    const value: unknown = counter[hook];
    if (value !== undefined && typeof value !== 'function')
      throw invalidOption(`counter.${hook}`, 'expected a function', value);
  }
}

/** The default `onError`: one process warning (the observer reports the first error only). */
function warnListenerError(error: unknown): void {
  warn(
    `a decision listener threw (${messageOf(error)}); the decision stands. Later errors of this limiter's listeners are only counted (listenerErrors); pass onError to see them.`,
  );
}

/** A process warning; where there is no process (not Node) nothing is said, and `listenerErrors` still counts. */
function warn(message: string): void {
  if (typeof process === 'object' && typeof process.emitWarning === 'function')
    process.emitWarning(message, 'RatelabWarning');
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
