import type { Decision } from './decision.js';
import type { Algorithm } from './policy.js';

/**
 * What became of a request, in the words every part of ratelab uses (the limiter's events,
 * the middleware's result, the metrics' `outcome` label, the lab's counts):
 * - `allowed`: admitted;
 * - `denied`: refused (the middleware answered 429);
 * - `shadow-denied`: would have been refused, let through because the limit is in shadow
 *   (`enforce: false` on the limiter, `shadow: true` on the middleware, `mode: shadow` on a tier);
 * - `failed-open`: the store failed and the request was let through (fail mode `open`);
 * - `failed-closed`: the store failed and the request was refused (fail mode `closed`).
 * A key whose state in the store is unusable counts as its fail mode's; the `local` fail
 * mode's answers are `allowed` and `denied` (with the event's `failure`).
 */
export type Outcome = 'allowed' | 'denied' | 'shadow-denied' | 'failed-open' | 'failed-closed';

/** Every outcome, in the order reports list them. */
export const OUTCOMES: readonly Outcome[] = ['allowed', 'denied', 'shadow-denied', 'failed-open', 'failed-closed'];

/**
 * One decision, as a limiter reports it to its listeners once the decision is made (after
 * the state was taken, before or as the caller gets it).
 */
export interface DecisionEvent {
  /** The key decided. Never a metric label: keys are unbounded. */
  readonly key: string;
  /** Units asked for (a whole number >= 0). */
  readonly cost: number;
  readonly outcome: Outcome;
  /** The algorithm given at the limiter's creation. */
  readonly algorithm: Algorithm;
  /** The limiter's `name` option (a tier's name when the tiers built it), or undefined. */
  readonly limiter: string | undefined;
  /**
   * The binding limit's name (see Decision): the one that denied, or of an admission the one
   * with the least remaining. A limiter of one limit: its name (the window, e.g. `1s`, unless named).
   */
  readonly limit: string;
  /** The decision as the caller got it (a shadow denial: `allowed: true`, `shadowDenied: true`). */
  readonly decision: Decision;
  /** Asynchronous limiters (Redis, node:cluster): ns from the call to its answer; undefined for the synchronous ones. */
  readonly durationNs: number | undefined;
  /**
   * Why the store failed, whenever it did and the fail mode decided (the decision's `error`
   * message): on every `failed-open` and `failed-closed`, and on the `local` fail mode's
   * `allowed`/`denied` (it decides in earnest), a shadow denial of a fail mode, and an open
   * fail mode's denial of a cost no limit can ever admit; else undefined.
   */
  readonly failure: string | undefined;
}

/**
 * A limiter's listener of decisions. Called synchronously as each decision is made: it costs
 * its caller the time of the call and no more (nothing awaits what it returns). One that
 * throws never changes or fails the decision: the limiter reports the error once through
 * its `onError` option (default: one process warning) and counts it (`listenerErrors`).
 */
export type DecisionListener = (event: DecisionEvent) => void;

/**
 * What every limiter offers its observers (memory, shared, node:cluster, Redis, approximate,
 * and any of several limits): listeners added after creation, beside the `onDecision`
 * option. No listener, no event: a limiter without one builds nothing per decision.
 */
export interface DecisionSource {
  /** Adds `listener` (the same function twice counts once); returns the function that removes it. */
  addDecisionListener(listener: DecisionListener): () => void;
  /**
   * Adds `counter` (the same object twice counts once): the limiter adds 1 to its `counts`
   * per decision, building no event (one is built for `denied` only). Returns the function
   * that removes it. Throws `INVALID_ARGUMENT` for a counter without `counts`.
   */
  addOutcomeCounter(counter: OutcomeCounter): () => void;
  /** Listener (and counter hook) calls that threw, since creation. */
  readonly listenerErrors: number;
  /** The limiter's `name` option (events' `limiter`, the metrics' `tier`), or undefined. */
  readonly name: string | undefined;
  /** The limiter's `enforce` option: `false` in shadow mode (so a middleware over it decides in shadow too). */
  readonly enforce: boolean;
}

/**
 * Decisions counted by outcome as the limiter makes them: the cheap way to keep metrics (what
 * `ratelab/metrics` uses). Counting a decision costs one increment: no event object, no call,
 * unless a hook below asks for one. Hooks run synchronously; one that throws counts as a
 * listener error and never changes the decision.
 */
export interface OutcomeCounter {
  /** Decisions so far per outcome, at each outcome's index in {@link OUTCOMES} (at least 5 entries). */
  readonly counts: Float64Array;
  /** Called with each decision's time, ns, by the asynchronous limiters (Redis, node:cluster). */
  timed?: (durationNs: number) => void;
  /** Called with the event of each denial (`denied`, `shadow-denied`, `failed-closed`). */
  denied?: (event: DecisionEvent) => void;
}

/** The options every limiter takes for its events and shadow mode. */
export interface ObservedOptions {
  /** A listener from the start (see {@link DecisionListener}). */
  onDecision?: DecisionListener;
  /** Told of a listener that threw (the first time only); default: one process warning. */
  onError?: (error: unknown) => void;
  /** Names the limiter in events and metrics (e.g. the tier's name); default none. */
  name?: string;
  /**
   * `false`: shadow mode. Every decision is made and its state taken exactly as when
   * enforcing (a denial takes nothing), but a denial is answered `allowed: true` with
   * `shadowDenied: true` and the figures it would have had (`remaining`, `retryAfterMs`),
   * and reported as `shadow-denied`. Default `true`.
   */
  enforce?: boolean;
}
