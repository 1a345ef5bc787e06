import type { Decision } from '../decision.js';

/**
 * The IPC messages between cluster workers and the primary. Tagged, so they share the
 * channel with the application's own messages: anything without the tag is left alone.
 */
export const TAG = 'ratelab.cluster-limiter';

/** A worker asks the primary's limiter `name` to take `cost` units for `key`. */
export interface ClusterRequest {
  readonly tag: typeof TAG;
  readonly id: number;
  readonly name: string;
  readonly key: string;
  readonly cost: number;
}

/** The primary's answer: the decision, or why there is none (an unknown limiter, a bad key or cost). */
export interface ClusterReply {
  readonly tag: typeof TAG;
  readonly id: number;
  readonly decision?: Decision;
  readonly error?: { readonly code: string; readonly message: string; readonly field?: string };
}

export function isRequest(message: unknown): message is ClusterRequest {
  const m = message as Partial<ClusterRequest> | null;
  return typeof m === 'object' && m !== null && m.tag === TAG && typeof m.id === 'number' && typeof m.name === 'string';
}

export function isReply(message: unknown): message is ClusterReply {
  const m = message as Partial<ClusterReply> | null;
  return typeof m === 'object' && m !== null && m.tag === TAG && typeof m.id === 'number' && (m.decision !== undefined || m.error !== undefined);
}

/**
 * JSON, which Node's IPC uses, turns Infinity into null: a retry time or limit of
 * Infinity (a cost the policy can never admit, an unlimited tier) travels as -1.
 */
export function encodeDecision(decision: Decision): Decision {
  const finite = (n: number) => (n === Infinity ? -1 : n);
  return { allowed: decision.allowed, limit: finite(decision.limit), remaining: finite(decision.remaining), retryAfterMs: finite(decision.retryAfterMs), resetMs: finite(decision.resetMs) };
}

export function decodeDecision(decision: Decision): Decision {
  const back = (n: number) => (n === -1 ? Infinity : n);
  return { allowed: decision.allowed, limit: back(decision.limit), remaining: back(decision.remaining), retryAfterMs: back(decision.retryAfterMs), resetMs: back(decision.resetMs) };
}
