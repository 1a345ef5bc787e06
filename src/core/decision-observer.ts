import { bindingIndex, type Decision } from './decision.js';
import type { DecisionEvent, DecisionListener, ObservedOptions, Outcome } from './decision-event.js';
import type { FailMode, ReasonedDecision } from './fail-over.js';
import { tightestLimit } from './limit-list.js';
import { invalidOption } from './options.js';
import type { Algorithm, NamedLimits } from './policy.js';
import { isThenable } from './thenable.js';

// The one implementation of decision events and shadow mode (src/core/decision-event.ts
// says the contract), which every limiter holds one of. A limiter checks `active` once per
// decision and, only when it is set, hands the decision to `settle`: without a listener or
// shadow mode nothing here runs, so the decision path allocates nothing more.

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
  /** Whether `settle` has anything to do: a listener, or shadow mode. The limiters' one check per decision. */
  active: boolean;
  /** `false`: shadow mode. */
  readonly enforce: boolean;
  /** The `name` option: events' `limiter`. */
  readonly name: string | undefined;
  /** Listener calls that threw (or whose promise rejected), since creation. */
  listenerErrors = 0;
  /** Replaced, never changed in place: a listener that removes itself (or another) mid-call leaves this call's round intact. */
  private listeners: readonly DecisionListener[];
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
    this.active = this.listeners.length > 0 || !this.enforce;
    this.soleLimit = tightestLimit(policies).name;
  }

  /** Adds `listener` (once, however often it is added); returns the function that removes it. */
  add(listener: DecisionListener): () => void {
    if (typeof listener !== 'function')
      throw invalidOption('listener', 'expected a function (event) => void', listener);
    if (!this.listeners.includes(listener)) this.listeners = [...this.listeners, listener];
    this.active = true;
    return () => {
      this.listeners = this.listeners.filter((added) => added !== listener);
      this.active = this.listeners.length > 0 || !this.enforce;
    };
  }

  /**
   * The decision the caller gets for `decided`, the one made for `cost` units of `key`: a
   * denial in shadow mode becomes a new object (`allowed: true`, `shadowDenied: true`), any
   * other decision is returned as is. Listeners are told of it, with `durationNs` (the
   * asynchronous limiters') and `decided`'s outcome.
   */
  settle<D extends Decision>(key: string, cost: number, decided: D, durationNs?: number): D {
    const given: D = decided.allowed || this.enforce ? decided : { ...decided, allowed: true, shadowDenied: true };
    if (this.listeners.length > 0) this.emit(key, cost, decided, given, durationNs);
    return given;
  }

  private emit(key: string, cost: number, decided: Decision, given: Decision, durationNs: number | undefined): void {
    const { limits } = decided;
    const reason = (decided as Partial<ReasonedDecision>).reason;
    const failed =
      reason !== undefined &&
      reason !== 'redis' &&
      reason !== 'primary' &&
      reason !== 'store' &&
      reason !== 'deny-cache';
    const event: DecisionEvent = {
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
