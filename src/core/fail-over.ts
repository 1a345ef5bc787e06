// Fail-over: what a limiter that depends on a store other processes share does when that
// store cannot answer, and the share of a global limit one node enforces alone (the `local`
// fail mode, and the distributed simulator's `local` strategy).

import { combineDecisions, type Decision, type LimitDecision } from './decision.js';
import type { LimitSpec, Limits, NamedLimits, Policy } from './policy.js';
import { RatelabError, describeValue } from './errors.js';

/**
 * What a limiter that depends on a shared store (Redis) does when the store cannot answer
 * within its timeout:
 * - `open`: admit (Stripe's choice: availability over enforcement);
 * - `closed`: deny;
 * - `local`: decide with an in-process limiter holding `limit / expectedNodes`.
 * The Redis limiter and the distributed simulator share these names so a design tried in
 * the lab is configured the same way in production.
 */
export const FAIL_MODES = ['open', 'closed', 'local'] as const;

/** One of {@link FAIL_MODES}: `open`, `closed` or `local`. */
export type FailMode = (typeof FAIL_MODES)[number];

/** `mode` if it is one of {@link FAIL_MODES}; else throws `INVALID_ARGUMENT` naming `field`. */
export function checkFailMode(mode: unknown, field = 'failMode'): FailMode {
  if ((FAIL_MODES as readonly unknown[]).includes(mode)) return mode as FailMode;
  throw new RatelabError(
    'INVALID_ARGUMENT',
    `${field}: expected 'open', 'closed' or 'local', got ${describeValue(mode)}`,
    { field },
  );
}

/**
 * The decision of `open` or `closed` for `cost` units while the shared store is out of
 * reach: `open` admits what the policy could ever admit, `closed` denies and says to retry
 * after `retryAfterMs` (when the store is worth asking again).
 */
export function failDecision(mode: 'open' | 'closed', capacity: number, cost: number, retryAfterMs: number): Decision {
  if (cost > capacity) return { allowed: false, limit: capacity, remaining: 0, retryAfterMs: Infinity, resetMs: 0 };
  if (mode === 'open')
    return { allowed: true, limit: capacity, remaining: capacity - cost, retryAfterMs: 0, resetMs: 0 };
  const wait = Math.ceil(retryAfterMs);
  return { allowed: false, limit: capacity, remaining: 0, retryAfterMs: wait, resetMs: wait };
}

/**
 * {@link failDecision} for a limiter of several limits (`list`, in order): each limit's own
 * answer as if it were alone (its capacity), admitted only when every limit admits, and
 * combined by the rule every backend shares (`combineDecisions`): `open` answers with the
 * tightest limit's remaining, `closed` with the longest wait (the same `retryAfterMs`).
 */
export function compositeFailDecision(
  mode: 'open' | 'closed',
  list: readonly NamedLimits[],
  cost: number,
  retryAfterMs: number,
): Decision {
  const limits: LimitDecision[] = list.map((entry) => ({
    name: entry.name,
    ...failDecision(mode, entry.capacity, cost, retryAfterMs),
  }));
  return combineDecisions(
    limits.every((limit) => limit.allowed),
    limits,
  );
}

/**
 * A node's share of `units` when `nodes` nodes each enforce a global quota alone:
 * `units / nodes` rounded down, so the shares never add up to more than the whole, but at
 * least 1 while any unit is left (a node that could admit nothing would starve its keys;
 * with more nodes than units the fleet then admits `nodes`, above the whole); 0 when none is.
 */
export function shareOf(units: number, nodes: number): number {
  return units <= 0 ? 0 : Math.max(1, Math.floor(units / nodes));
}

/**
 * Each node's share of a global `policy` when `nodes` nodes enforce it alone: the limit and
 * the burst each by {@link shareOf}; the window stays. The distributed simulator's `local`
 * strategy and the Redis limiter's `failMode: 'local'` both use it.
 */
export function nodeShare(policy: Policy, nodes: number): Policy {
  const limit = shareOf(policy.limit, nodes);
  return policy.burst === undefined
    ? { limit, windowMs: policy.windowMs }
    : { limit, windowMs: policy.windowMs, burst: shareOf(policy.burst, nodes) };
}

/** The reasons the fail mode gives, one per mode: `fail-open`, `fail-closed`, `local-fallback`. */
export type FailOverReason = 'fail-open' | 'fail-closed' | 'local-fallback';

/**
 * Why a decision of a limiter over a shared store is what it is:
 * - the store decided: `redis` (the Redis limiter), `primary` (a cluster worker's limiter,
 *   decided by the primary), `store` (any other backend built on `createStoreLimiter`);
 * - `deny-cache`: a denial the store gave earlier, reused in process;
 * - a {@link FailOverReason}: the store could not answer in time and the fail mode decided;
 *   the decision's `error` says what failed (a timeout, the client's error, an open breaker);
 * - `key-error`: the key's own state in the store is unusable (WRONGTYPE, a value that does
 *   not parse); the fail mode decided, and the decision's `error` says what the store said.
 * The HTTP middleware reads it: `fail-open`/`fail-closed` answer like a limiter failure, and
 * `key-error` is reported to `onError` as `REDIS_KEY_ERROR`.
 */
export type DecisionReason = 'redis' | 'primary' | 'store' | 'deny-cache' | FailOverReason | 'key-error';

/**
 * A {@link Decision} that says where it came from; with `key-error`, `error` is the store's
 * message, and with a {@link FailOverReason}, why the store could not answer.
 */
export type ReasonedDecision<R extends DecisionReason = DecisionReason> = Decision & { reason: R; error?: string };

/** What the `local` fail mode decides with: an in-process limiter holding this node's share. */
export interface LocalShare {
  consume(key: string, cost: number): Decision;
  reset(key: string): unknown;
}

/**
 * `expectedNodes` for `failMode`: the node count N as a whole number >= 1 when the mode is
 * `local` (each node then holds `limit / N`), else ignored (undefined). `members` names the
 * nodes in the error (`nodes`, `workers`). Throws `INVALID_ARGUMENT` naming `expectedNodes`.
 */
export function checkExpectedNodes(mode: FailMode, nodes: unknown, members = 'nodes'): number | undefined {
  if (mode !== 'local') return undefined;
  if (typeof nodes === 'number' && Number.isInteger(nodes) && nodes >= 1) return nodes;
  throw new RatelabError(
    'INVALID_ARGUMENT',
    `expectedNodes: failMode 'local' needs the number of ${members} sharing the limit, a whole number >= 1, got ${describeValue(nodes)}`,
    { field: 'expectedNodes' },
  );
}

/**
 * The policy of the `local` fail mode's limiter: {@link nodeShare} of the checked `limits`,
 * the capacity standing for the burst (for the window algorithms, which ignore `burst`, it is
 * the limit: the share they get is the same).
 */
export function localSharePolicy(limits: Limits, nodes: number): Policy {
  return nodeShare({ limit: limits.limit, windowMs: limits.windowMs, burst: limits.capacity }, nodes);
}

/**
 * The limits of the `local` fail mode's limiter for a limiter of `list`: each limit's
 * {@link localSharePolicy}, its name and algorithm kept, so the share decides the limits
 * together as the store would (a request one share denies takes from none). One limit
 * gives a list of one, which a limiter decides as that one policy.
 */
export function localShareLimits(list: readonly NamedLimits[], nodes: number): LimitSpec[] {
  return list.map((entry) => ({ ...localSharePolicy(entry, nodes), algorithm: entry.algorithm, name: entry.name }));
}

/**
 * The decisions of a fail mode, for a limiter whose store could not answer: the one place
 * that decides by fail mode. `local` asks `local` (built with {@link localShareLimits});
 * `open` and `closed` are {@link failDecision}, `closed` asking to retry after
 * `retryAfterMs` (when the store is worth asking again); with `list` of several limits,
 * {@link compositeFailDecision}. `local` is given exactly when `mode` is `local`.
 */
export class FailOver {
  constructor(
    readonly mode: FailMode,
    private readonly capacity: number,
    private readonly retryAfterMs: number,
    private readonly local: LocalShare | undefined,
    private readonly list: readonly NamedLimits[] = [],
  ) {}

  /** The fail mode's decision for `cost` units of `key`, with its reason. */
  decide(key: string, cost: number): ReasonedDecision<FailOverReason> {
    if (this.local !== undefined) return { ...this.local.consume(key, cost), reason: 'local-fallback' };
    const mode = this.mode === 'open' ? 'open' : 'closed';
    const decision =
      this.list.length > 1
        ? compositeFailDecision(mode, this.list, cost, this.retryAfterMs)
        : failDecision(mode, this.capacity, cost, this.retryAfterMs);
    return { ...decision, reason: mode === 'open' ? 'fail-open' : 'fail-closed' };
  }

  /** Forgets `key` in the local share (after a reset of the key). */
  forget(key: string): void {
    this.local?.reset(key);
  }
}
