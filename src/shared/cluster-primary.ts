import cluster, { type Worker } from 'node:cluster';
import { RatelabError } from '../core/errors.js';
import { createLimiter, type LimiterOptions, type RateLimiter } from '../memory/limiter.js';
import { checkKey, invalidOption } from '../core/options.js';
import { limitListDifference } from '../core/limit-list.js';
import type { Algorithm, NamedLimits, PolicyInput } from '../core/policy.js';
import { checkKeyBytes } from './key-bytes.js';
import { checkMaxKeyBytes } from './limiter.js';
import {
  RESET,
  TAG,
  encodeDecision,
  hostNowMs,
  isBatch,
  type ClusterBatchReply,
  type ClusterError,
  type ClusterResult,
} from './cluster-protocol.js';

/**
 * Options of {@link serveClusterLimiter}: the memory limiter's (listeners of the primary's
 * own decisions among them, but not `enforce`: shadow mode is each worker's), and the key bound.
 */
export interface ServeOptions extends Omit<LimiterOptions, 'enforce'> {
  /** The longest key, in UTF-8 bytes (default 128, at most 4096, as the shared table); a longer key is refused with `INVALID_KEY`. */
  maxKeyBytes?: number;
}

interface Served {
  readonly limiter: RateLimiter;
  readonly maxKeyBytes: number;
}

/** The limiters this primary serves, by name. */
const served = new Map<string, Served>();

/** A limiter served to cluster workers; `close` stops serving it. */
export interface ServedLimiter {
  readonly name: string;
  /** The primary's own limiter: its decisions are the workers'. */
  readonly limiter: RateLimiter;
  close(): void;
}

/**
 * In the cluster's primary: decides for the workers' `createClusterLimiter(algorithm, policy, { name })`
 * with one in-memory limiter of `algorithm` and `policy` (one policy or a list of limits, as
 * `createLimiter` takes; options as for `createLimiter`, and `maxKeyBytes`). The primary
 * owns the limits: a worker whose limiter was created with others has its calls rejected
 * with `INVALID_POLICY` naming the first entry that differs.
 * The primary's event loop decides one batch of requests at a time, in order, so the workers
 * share the limit exactly, in the order their requests arrive. Throws `INVALID_ARGUMENT` outside the
 * primary or for a name already served.
 */
export function serveClusterLimiter(
  name: string,
  algorithm: Algorithm,
  policy: PolicyInput,
  options: ServeOptions = {},
): ServedLimiter {
  if (!cluster.isPrimary)
    throw new RatelabError(
      'INVALID_ARGUMENT',
      'serveClusterLimiter: call it in the cluster primary (workers call createClusterLimiter)',
      { field: 'name' },
    );
  if (served.has(name))
    throw new RatelabError('INVALID_ARGUMENT', `name: the primary already serves a limiter ${JSON.stringify(name)}`, {
      field: 'name',
    });
  const { maxKeyBytes, ...limiterOptions } = options;
  if ((limiterOptions as LimiterOptions).enforce !== undefined)
    throw invalidOption(
      'enforce',
      "shadow mode is the workers' (createClusterLimiter's enforce): the primary answers them as it decided",
      (limiterOptions as LimiterOptions).enforce,
    );
  const limiter = createLimiter(algorithm, policy, limiterOptions);
  const entry: Served = { limiter, maxKeyBytes: checkMaxKeyBytes(maxKeyBytes) };
  if (served.size === 0) cluster.on('message', answer);
  served.set(name, entry);
  return {
    name,
    limiter,
    close() {
      if (served.get(name) !== entry) return;
      served.delete(name);
      if (served.size === 0) cluster.off('message', answer);
    },
  };
}

/** Decides a worker's batch in arrival order and answers it with one message. */
function answer(worker: Worker, message: unknown): void {
  if (!isBatch(message)) return;
  const target = served.get(message.name);
  if (!target) {
    const error = new RatelabError(
      'INVALID_ARGUMENT',
      `name: the primary serves no limiter ${JSON.stringify(message.name)}`,
      { field: 'name' },
    );
    send(worker, { tag: TAG, batch: message.batch, results: [], error: refusal(error) } satisfies ClusterBatchReply);
    return;
  }
  const mismatch =
    message.policies === undefined ? undefined : policyRefusal(target.limiter.policies, message.policies);
  if (mismatch) {
    send(worker, { tag: TAG, batch: message.batch, results: [], error: mismatch } satisfies ClusterBatchReply);
    return;
  }
  const results: ClusterResult[] = [];
  for (let i = 0; i < message.keys.length; i++) {
    // Checked per request, not per batch: a batch begun just before its deadline must not
    // go on deciding after it, once the worker may have answered by its fail mode.
    const late = hostNowMs() >= message.deadline;
    results.push(late ? null : decide(target, message.keys[i] as string, message.costs[i] as number | typeof RESET));
  }
  send(worker, { tag: TAG, batch: message.batch, results } satisfies ClusterBatchReply);
}

/**
 * One request of a batch: a worker is another program, so its key and cost are checked here
 * too, and its key bounded before the limiter keeps it.
 */
function decide(target: Served, key: string, cost: number | typeof RESET): ClusterResult {
  try {
    checkKey(key);
    if (cost === RESET) return { reset: target.limiter.reset(key) };
    checkKeyBytes(key, target.maxKeyBytes, 'cluster');
    return encodeDecision(target.limiter.consume(key, cost));
  } catch (error) {
    return { error: refusal(error) };
  }
}

/**
 * Why the primary refuses a worker whose limiter enforces `asked` (what the worker sent, so
 * anything) rather than the `enforced` limits it serves, or undefined when they are the same.
 */
export function policyRefusal(enforced: readonly NamedLimits[], asked: unknown): ClusterError | undefined {
  const list = Array.isArray(asked)
    ? asked.map((entry: unknown) => (typeof entry === 'object' && entry ? entry : {}))
    : [];
  const difference = limitListDifference(enforced, list as NamedLimits[]);
  if (difference === undefined) return undefined;
  return {
    code: 'INVALID_POLICY',
    message: `${difference.field}: the primary enforces ${difference.enforced}, this worker asked for ${difference.asked}; create the worker's limiter with the primary's limits`,
    field: difference.field,
  };
}

function refusal(error: unknown): ClusterError {
  const e = error as RatelabError;
  return { code: e.code ?? 'INVALID_ARGUMENT', message: e.message, field: e.field };
}

/**
 * A worker that exited meanwhile has no channel: its requests die with it. The callback is
 * what keeps that quiet: without one, the failed write (EPIPE, or the channel closed between
 * `isConnected()` and the write) is emitted as an `'error'` event on a worker nobody listens
 * to, which throws in the primary and takes it down with every other worker's limit.
 */
function send(worker: Worker, reply: object): void {
  if (worker.isConnected()) worker.send(reply, undefined, undefined, ignoreGone);
}

function ignoreGone(): void {}
