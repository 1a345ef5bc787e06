import cluster, { type Worker } from 'node:cluster';
import { RatelabError } from '../errors.js';
import { createLimiter, type LimiterOptions, type RateLimiter } from '../memory/limiter.js';
import type { Algorithm, Policy } from '../policy.js';
import { TAG, encodeDecision, isRequest, type ClusterReply } from './cluster-protocol.js';

/** The limiters this primary serves, by name. */
const served = new Map<string, RateLimiter>();

/** A limiter served to cluster workers; `close` stops serving it. */
export interface ServedLimiter {
  readonly name: string;
  /** The primary's own limiter: its decisions are the workers'. */
  readonly limiter: RateLimiter;
  close(): void;
}

/**
 * In the cluster's primary: decides for the workers' `createClusterLimiter(name, ...)`
 * with one in-memory limiter of `algorithm` and `policy` (options as for `createLimiter`).
 * The primary's event loop decides one request at a time, so the workers share the limit
 * exactly, in the order their requests arrive. Throws `INVALID_ARGUMENT` outside the
 * primary or for a name already served.
 */
export function serveClusterLimiter(name: string, algorithm: Algorithm, policy: Policy, options: LimiterOptions = {}): ServedLimiter {
  if (!cluster.isPrimary) throw new RatelabError('INVALID_ARGUMENT', 'serveClusterLimiter: call it in the cluster primary (workers call createClusterLimiter)', { field: 'name' });
  if (served.has(name)) throw new RatelabError('INVALID_ARGUMENT', `name: the primary already serves a limiter ${JSON.stringify(name)}`, { field: 'name' });
  const limiter = createLimiter(algorithm, policy, options);
  if (served.size === 0) cluster.on('message', answer);
  served.set(name, limiter);
  return {
    name,
    limiter,
    close() {
      if (served.get(name) !== limiter) return;
      served.delete(name);
      if (served.size === 0) cluster.off('message', answer);
    },
  };
}

function answer(worker: Worker, message: unknown): void {
  if (!isRequest(message)) return;
  let reply: ClusterReply;
  try {
    const limiter = served.get(message.name);
    if (!limiter) throw new RatelabError('INVALID_ARGUMENT', `name: the primary serves no limiter ${JSON.stringify(message.name)}`, { field: 'name' });
    reply = { tag: TAG, id: message.id, decision: encodeDecision(limiter.consume(message.key, message.cost)) };
  } catch (error) {
    const e = error as RatelabError;
    reply = { tag: TAG, id: message.id, error: { code: e.code ?? 'INVALID_ARGUMENT', message: e.message, field: e.field } };
  }
  send(worker, reply);
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
