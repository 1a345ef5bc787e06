import type { Decision, LimitDecision } from '../core/decision.js';
import type { RatelabErrorCode } from '../core/errors.js';
import type { NamedLimits } from '../core/policy.js';

/**
 * The IPC messages between cluster workers and the primary. Tagged, so they share the
 * channel with the application's own messages: anything without the tag is left alone.
 * Requests travel in batches (all of a limiter's calls of one event-loop turn, at most
 * {@link MAX_BATCH}), so the per-message cost of IPC (a JSON line and a write each way, and
 * an event in both processes) is paid once per batch rather than once per decision.
 */
export const TAG = 'ratelab.cluster-limiter';

/**
 * The most requests one batch carries: small, because a batch's round trip is what the
 * timeout measures, and on a loaded machine the CPU time a batch costs both processes
 * stretches into many times that in wall time (docs/shared.md has the figures). Calls beyond
 * it wait in the worker, untimed.
 */
export const MAX_BATCH = 256;

/**
 * A worker asks the primary's limiter `name` to take `costs[i]` units for `keys[i]`, in order,
 * each before `deadline` ({@link hostNowMs}): past it the worker has answered by its fail
 * mode, so the primary applies nothing (a denial by `closed` must spend no quota later).
 * A cost of {@link RESET} asks it to forget `keys[i]` instead.
 */
export interface ClusterBatch {
  readonly tag: typeof TAG;
  readonly batch: number;
  readonly name: string;
  readonly deadline: number;
  readonly keys: readonly string[];
  readonly costs: readonly (number | typeof RESET)[];
  /**
   * The limits the worker's limiter was created with (its `policies`), sent until the
   * primary has accepted a batch: the primary refuses every request of a batch whose
   * limits are not its own, naming the first entry that differs.
   */
  readonly policies?: readonly NamedLimits[];
}

/** The cost of a request that resets its key (JSON carries it as is, unlike a symbol). */
export const RESET = null;

/** Why the primary refused a request (an unknown limiter, a bad key or cost). */
export interface ClusterError {
  readonly code: RatelabErrorCode;
  readonly message: string;
  readonly field?: string;
}

/**
 * A decision as it travels: `[allowed ? 1 : 0, limit, remaining, retryAfterMs, resetMs]`,
 * and for a limiter of several limits the same five numbers of each limit after them, in
 * order (the names are the worker's own `policies`, which the primary checked are its own).
 */
export type EncodedDecision = readonly [number, number, number, number, number, ...number[]];

/** Numbers per decision, and per limit of several. */
const FIELDS = 5;

/** A reset's outcome: whether the key held state. */
export interface ResetResult {
  readonly reset: boolean;
}

/** One request's outcome: its decision (or a reset's), the primary's refusal, or `null`: dropped, past its deadline. */
export type ClusterResult = EncodedDecision | ResetResult | { readonly error: ClusterError } | null;

/** The primary's answer to a batch: `results[i]` for request `i`, or `error` for the whole batch. */
export interface ClusterBatchReply {
  readonly tag: typeof TAG;
  readonly batch: number;
  readonly results: readonly ClusterResult[];
  readonly error?: ClusterError;
}

function tagged(message: unknown): message is Record<string, unknown> {
  return typeof message === 'object' && message !== null && (message as { tag?: unknown }).tag === TAG;
}

export function isBatch(message: unknown): message is ClusterBatch {
  if (!tagged(message)) return false;
  const { batch, name, deadline, keys, costs } = message;
  return (
    typeof batch === 'number' &&
    typeof name === 'string' &&
    typeof deadline === 'number' &&
    Array.isArray(keys) &&
    Array.isArray(costs) &&
    keys.length === costs.length
  );
}

export function isBatchReply(message: unknown): message is ClusterBatchReply {
  return tagged(message) && typeof message.batch === 'number' && Array.isArray(message.results);
}

/**
 * Milliseconds on the host's monotonic clock (`process.hrtime`: CLOCK_MONOTONIC on Linux, a
 * system-wide counter on macOS and Windows too), one clock for every process of the host,
 * unlike `performance.now()`, whose origin is each process's start: a deadline a worker
 * writes is the same instant to the primary, and a wall-clock step moves neither.
 */
export function hostNowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * JSON, which Node's IPC uses, turns Infinity into null: a retry time or limit of
 * Infinity (a cost the policy can never admit, an unlimited tier) travels as -1.
 */
export function encodeDecision(decision: Decision): EncodedDecision {
  const encoded = encodeFields(decision);
  for (const limit of decision.limits ?? []) encoded.push(...encodeFields(limit));
  return encoded;
}

function encodeFields(decision: Decision | LimitDecision): [number, number, number, number, number] {
  const finite = (n: number) => (n === Infinity ? -1 : n);
  return [
    decision.allowed ? 1 : 0,
    finite(decision.limit),
    finite(decision.remaining),
    finite(decision.retryAfterMs),
    finite(decision.resetMs),
  ];
}

/** The decision `encoded` carries; `names` are the limits' of a limiter of several, in order. */
export function decodeDecision(encoded: EncodedDecision, names: readonly string[] = []): Decision {
  const decision: Decision = decodeFields(encoded, 0);
  if (encoded.length === FIELDS) return decision;
  const limits: LimitDecision[] = [];
  for (let at = FIELDS, i = 0; at < encoded.length; at += FIELDS, i++)
    limits.push({ name: names[i] ?? `${i}`, ...decodeFields(encoded, at) });
  return { ...decision, limits };
}

function decodeFields(encoded: readonly number[], at: number): Decision {
  const back = (n: number | undefined) => (n === -1 ? Infinity : (n as number));
  return {
    allowed: encoded[at] === 1,
    limit: back(encoded[at + 1]),
    remaining: back(encoded[at + 2]),
    retryAfterMs: back(encoded[at + 3]),
    resetMs: back(encoded[at + 4]),
  };
}
