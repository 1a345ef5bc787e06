import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Decision } from '../core/decision.js';
import type { Outcome } from '../core/decision-event.js';
import { RatelabError, describeValue } from '../core/errors.js';
import { checkFailMode, type DecisionReason, type FailMode } from '../core/fail-over.js';
import type { Consumer } from '../core/limiter.js';
import { checkCost } from '../core/options.js';
import type { Limits, NamedLimits } from '../core/policy.js';
import type { RateLimiterRegistry } from '../tiers/registry.js';
import { addressKey, clientAddress, ipv6Subnet, proxyTrust, type TrustProxy } from './client-address.js';
import {
  rateLimitHeaders,
  retryAfterSeconds,
  sfString,
  type HeaderField,
  type HeaderOptions,
  type PolicyInfo,
} from './headers.js';

/**
 * A decision as the middleware reads it: a limiter over a shared store (Redis, a cluster
 * primary) says why (`reason`, see {@link DecisionReason}); any other limiter's decision
 * has none.
 */
type MaybeReasoned = Decision & {
  readonly reason?: DecisionReason;
  readonly error?: string;
  readonly shadowDenied?: true;
};

/**
 * What the middleware needs of a limiter: `consume`, sync (the memory limiters) or async
 * (a Redis limiter). `limits` (and `policies`) feed `RateLimit-Policy`; `failMode` (declared by the Redis
 * limiter) says what to do when `consume` throws or rejects, see {@link LETS_THROUGH}.
 */
export interface LimiterLike extends Consumer<MaybeReasoned> {
  readonly limits?: Limits;
  /** Its limits, named: several make several policies in the IETF fields (see `rateLimitHeaders`). */
  readonly policies?: readonly NamedLimits[];
  readonly failMode?: FailMode;
  /** `false`: the limiter is in shadow mode (see `ObservedOptions.enforce`); its answers are then decided in shadow. */
  readonly enforce?: boolean;
}

/**
 * Whether a request goes through when the limiter throws or rejects, by fail mode: `open`
 * lets it through, `closed` answers 503. `local` answers 503 too: a limiter in that mode
 * decides in memory while its store is down, so a throw from it is not an outage but a bad
 * cost or a bug, and the middleware has no store of its own to fall back from.
 */
const LETS_THROUGH: Readonly<Record<FailMode, boolean>> = { open: true, closed: false, local: false };

/** The continuation of a middleware stack; Express's `next` fits. */
export type Next = (error?: unknown) => void;

/**
 * How one request was decided, for logging and counting: see {@link rateLimitResult} and
 * the `onDecision` option.
 */
export interface RateLimitResult {
  /**
   * What became of the request, in the words of `Outcome` (src/core/decision-event.ts):
   * `allowed`; `denied` (429); `shadow-denied` (the limiter denied or, in shadow, would
   * have, and the request went on); `failed-open` / `failed-closed` (the limiter could not
   * decide: let through / 503); and the middleware's own `no-key`: no usable key with
   * `noKey: 'reject'` (400, or let through in shadow), the limiter not asked.
   */
  outcome: Outcome | 'no-key';
  /** The limiter key, or undefined when none could be found. */
  key: string | undefined;
  /** The policy name (the tier, with a registry). */
  policy: string;
  /** The limiter's decision; undefined when it failed or was not asked. */
  decision: Decision | undefined;
  /**
   * True when the middleware's own `shadow` let through a request its enforcing limiter
   * denied: the limiter's own events (and metrics) counted that request `denied`, this
   * result `shadow-denied`. False otherwise (a limiter in shadow says `shadow-denied` itself).
   */
  overridden: boolean;
}

/** What a custom `onLimited` handler gets besides the request and response. */
export interface LimitedInfo {
  decision: Decision;
  policy: string;
  /** Whole seconds the client must wait, or undefined when the request can never be admitted. */
  retryAfter: number | undefined;
  cost: number;
}

/** Options of {@link rateLimit}. Exactly one of `limiter` and `registry`. */
export interface RateLimitOptions<Req extends IncomingMessage = IncomingMessage> {
  /** One limiter for every key. */
  limiter?: LimiterLike;
  /** One limiter per tier: the key is the client id, the policy name is its tier. */
  registry?: RateLimiterRegistry;
  /** The limiter key of a request (default: the client address, see `trustProxy` and `ipv6Subnet`). */
  key?: (req: Req) => string | undefined;
  /** Units a request takes: a whole number >= 0, or a function of the request. Default 1. */
  cost?: number | ((req: Req) => number);
  /** Which header fields to send; default: the X-RateLimit-* fields only. */
  headers?: HeaderOptions;
  /** Whether to believe `X-Forwarded-For` for the default key. Default false. */
  trustProxy?: TrustProxy;
  /**
   * The default key groups IPv6 clients by their network of this many leading bits (1-128),
   * IPv4 clients by address; `false` keys each IPv6 address alone. Default 64.
   */
  ipv6Subnet?: number | false;
  /**
   * A request without a usable key (no `key()` answer, or no peer address): `share`
   * (default) decides all of them under one shared key, so they are limited together and
   * never unlimited; `reject` answers 400.
   */
  noKey?: 'share' | 'reject';
  /**
   * Answers a denied request instead of the default JSON body; status and headers are set
   * already. A promise it returns is awaited; if it throws or rejects, that is a limiter
   * failure: `onError` is told and the fail mode applies.
   */
  onLimited?: (req: Req, res: ServerResponse, info: LimitedInfo) => unknown;
  /**
   * What to do when the limiter (or `key`, `cost`, `onLimited`) throws, or `consume`
   * answers something that is not a Decision: `open` lets the request through,
   * `closed` and `local` answer 503. Overrides the limiter's own declared `failMode`;
   * default that, else `closed`.
   */
  failMode?: FailMode;
  /** Told of every such failure (`INVALID_DECISION` for a non-Decision, `REDIS_KEY_ERROR` for a Redis key whose state is unusable), and of an `onDecision` that threw; default: one process warning. An `onError` that throws is only warned about. */
  onError?: (error: unknown, req: Req) => void;
  /**
   * Shadow mode: the middleware never answers a request itself, every request goes on to
   * `next()`. Every decision is still made (state taken as when enforcing) and reported: a
   * denial becomes `shadow-denied` (`onLimited` is never called), a limiter failure
   * `failed-open`, and a keyless request under `noKey: 'reject'` stays `no-key`. Default false.
   */
  shadow?: boolean;
  /**
   * The rate-limit fields of a request decided in shadow (the middleware's `shadow`, a
   * limiter in shadow, or a tier in `mode: shadow`): `none` (default) sends none, so the
   * trial is invisible to clients; `as-enforced` sends those enforcing would have sent, a
   * shadow denial's with its `remaining` and `RateLimit` `t`, but never `Retry-After`, which
   * on a response that went through would tell the client to wait for nothing.
   */
  shadowHeaders?: ShadowHeaders;
  /**
   * Told of every request once it is decided (the same result {@link rateLimitResult}
   * returns), before the request goes on or is answered; for logs and metrics (see
   * `overridden` for counting a middleware in shadow). One that throws changes nothing;
   * `onError` is told.
   */
  onDecision?: (result: RateLimitResult, req: Req) => void;
}

/** The rate-limit fields of a response decided in shadow: see `RateLimitOptions.shadowHeaders`. */
export type ShadowHeaders = 'none' | 'as-enforced';

/** The key under which requests without a usable key share one quota. */
export const SHARED_NO_KEY = '\u0000no-key';

const results = new WeakMap<IncomingMessage, RateLimitResult>();

/** How `req` was decided by a {@link rateLimit} middleware, once it has run. */
export function rateLimitResult(req: IncomingMessage): RateLimitResult | undefined {
  return results.get(req);
}

/**
 * A 429 middleware for `node:http` and Express-style stacks: `(req, res, next?)`. It asks
 * the limiter about the request's key, sets the rate-limit headers (see
 * `rateLimitHeaders`) from that decision, and either calls `next()` or answers:
 * - denied: 429, `Retry-After` in whole seconds rounded up (at least 1), a small JSON body;
 *   a request whose cost exceeds the policy's capacity can never pass: 429 without
 *   `Retry-After`, body `cost_exceeds_limit`.
 * - the limiter (or `key`, `cost`, `onLimited`) throws or rejects, or `consume` answers
 *   no Decision: fail `open` calls `next()` without rate-limit headers, fail `closed`
 *   answers 503; either way `onError` is told. A Redis
 *   limiter's own `fail-open` / `fail-closed` decisions (its `reason`) are handled alike,
 *   the 503 with its Retry-After.
 * - no usable key with `noKey: 'reject'`: 400.
 * In shadow (`shadow: true`) it answers none of these itself: every request goes on.
 * With plain `node:http`, pass the handler as `next`. The returned promise never rejects
 * for the middleware's own failures; it rejects only if `next` itself throws.
 */
export function rateLimit<Req extends IncomingMessage = IncomingMessage>(
  options: RateLimitOptions<Req>,
): (req: Req, res: ServerResponse, next?: Next) => Promise<void> {
  checkOptions(options);
  const source = decisionSource(options);
  const keyOf = options.key ?? defaultKey(options);
  const shadow = options.shadow === true;
  const chosen = options.failMode === undefined ? (source.failMode ?? 'closed') : checkFailMode(options.failMode);
  // In shadow nothing is refused: a limiter that cannot decide lets the request through.
  const failMode = shadow ? 'open' : chosen;
  const onError = options.onError ?? warnOnce();
  const settings: Settings<Req> = {
    source,
    keyOf,
    shadow,
    shadowHeaders: options.shadowHeaders ?? 'none',
    headers: options.headers ?? {},
    onLimited: options.onLimited,
  };

  return async (req, res, next) => {
    const at: { key: string | undefined; policy: string } = { key: undefined, policy: source.name };
    let passes: boolean;
    try {
      passes = await decideRequest(req, res, options, settings, at);
    } catch (error) {
      tell(onError, error, req);
      passes = failed(failMode, req, res, { ...at, retryAfterMs: Infinity });
    }
    const result = results.get(req);
    if (options.onDecision && result) {
      try {
        options.onDecision(result, req);
      } catch (error) {
        tell(onError, error, req);
      }
    }
    // Outside the try: an error of the application's own handler is not a limiter failure.
    if (passes) next?.();
  };
}

/** What every request of one middleware is decided with. */
interface Settings<Req extends IncomingMessage> {
  source: DecisionSource;
  keyOf: (req: Req) => string | undefined;
  shadow: boolean;
  shadowHeaders: ShadowHeaders;
  headers: HeaderOptions;
  onLimited: RateLimitOptions<Req>['onLimited'];
}

/** The client address as a key: see `trustProxy` and `ipv6Subnet`. */
function defaultKey(options: RateLimitOptions<never>): (req: IncomingMessage) => string | undefined {
  const trust = proxyTrust(options.trustProxy);
  const subnet = ipv6Subnet(options.ipv6Subnet);
  return (req) => {
    const address = clientAddress(req, trust);
    return address === undefined ? undefined : addressKey(address, subnet);
  };
}

/**
 * Decides `req` and answers it unless it passes; returns whether it passes. Throws when
 * `key`, `cost`, the limiter or `onLimited` throws, or the limiter's answer is no Decision.
 */
async function decideRequest<Req extends IncomingMessage>(
  req: Req,
  res: ServerResponse,
  options: RateLimitOptions<Req>,
  settings: Settings<Req>,
  at: { key: string | undefined; policy: string },
): Promise<boolean> {
  const { source } = settings;
  const key = usableKey(settings.keyOf(req));
  at.key = key;
  if (key === undefined && options.noKey === 'reject') {
    results.set(req, { outcome: 'no-key', key, policy: source.name, decision: undefined, overridden: false });
    if (settings.shadow) return true;
    sendJson(res, 400, { error: 'no_client_key', message: 'The request carries no client identity to rate-limit by.' });
    return false;
  }
  const cost = typeof options.cost === 'function' ? options.cost(req) : (options.cost ?? 1);
  const decided = await source.decide(key ?? SHARED_NO_KEY, cost);
  checkDecision(decided.decision);
  at.policy = decided.policy.name;
  const { reason } = decided.decision;
  if (reason === 'key-error') {
    // One key's state is unusable: the operator must hear of it (the limiter only says so
    // in the decision), and the request takes the fail mode like any limiter failure.
    throw new RatelabError(
      'REDIS_KEY_ERROR',
      `limiter: Redis cannot decide key ${JSON.stringify(key ?? SHARED_NO_KEY)}: ${String(decided.decision.error)}`,
      { field: 'limiter' },
    );
  }
  if (reason === 'fail-open' || reason === 'fail-closed') {
    // A Redis limiter decided by its own fail mode: no quota is known, so no rate-limit fields.
    return failed(reason === 'fail-open' || settings.shadow ? 'open' : 'closed', req, res, {
      key,
      policy: decided.policy.name,
      retryAfterMs: decided.decision.retryAfterMs,
    });
  }
  return answer(req, res, { ...decided, key, cost }, settings);
}

/**
 * Sets the fields of a decision, then returns true to let the request through, or answers
 * 429. A denial in shadow (the middleware's, or the limiter's own `shadowDenied`) passes.
 */
async function answer<Req extends IncomingMessage>(
  req: Req,
  res: ServerResponse,
  decided: { decision: MaybeReasoned; policy: PolicyInfo; inShadow: boolean; key: string | undefined; cost: number },
  settings: Settings<Req>,
): Promise<boolean> {
  const { decision, policy, key, cost } = decided;
  const overridden = settings.shadow && !decision.allowed;
  const shadowDenied = overridden || decision.shadowDenied === true;
  const outcome = shadowDenied ? 'shadow-denied' : decision.allowed ? 'allowed' : 'denied';
  results.set(req, { outcome, key, policy: policy.name, decision, overridden });
  const inShadow = settings.shadow || decided.inShadow || shadowDenied;
  const fields = res.headersSent ? [] : shadowAware(decision, policy, settings, shadowDenied, inShadow);
  for (const [name, value] of fields) res.setHeader(name, value);
  if (decision.allowed || shadowDenied) return true;
  const retryAfter = retryAfterSeconds(decision.retryAfterMs);
  res.statusCode = 429;
  const { onLimited } = settings;
  if (!onLimited) {
    sendJson(res, 429, limitedBody(decision, policy.name, retryAfter, cost));
    return false;
  }
  try {
    await onLimited(req, res, { decision, policy: policy.name, retryAfter, cost });
  } catch (error) {
    // Undo the denial's status and fields, so a fail-open request goes on as if unlimited.
    if (!res.headersSent) {
      res.statusCode = 200;
      for (const [name] of fields) res.removeHeader(name);
    }
    throw error;
  }
  return false;
}

/**
 * The rate-limit fields of a decision. Decided in shadow: none (`shadowHeaders: 'none'`),
 * or those enforcing would have sent (a shadow denial's as a denial's) without
 * `Retry-After`, since the request went through.
 */
function shadowAware<Req extends IncomingMessage>(
  decision: Decision,
  policy: PolicyInfo,
  settings: Settings<Req>,
  shadowDenied: boolean,
  inShadow: boolean,
): HeaderField[] {
  if (!inShadow) return rateLimitHeaders(decision, policy, settings.headers);
  if (settings.shadowHeaders === 'none') return [];
  const asEnforced = shadowDenied && decision.allowed ? { ...decision, allowed: false } : decision;
  return rateLimitHeaders(asEnforced, policy, settings.headers).filter(([name]) => name !== 'Retry-After');
}

/**
 * Throws `INVALID_DECISION` unless `decision` has the fields of a {@link Decision}: a
 * limiter that answers anything else (undefined, a wrong type, NaN) could not decide.
 */
function checkDecision(decision: unknown): asserts decision is Decision {
  const fields = decision as Partial<Record<keyof Decision, unknown>> | null | undefined;
  const numbers = [fields?.limit, fields?.remaining, fields?.retryAfterMs, fields?.resetMs];
  if (
    typeof fields?.allowed === 'boolean' &&
    numbers.every((value) => typeof value === 'number' && !Number.isNaN(value))
  )
    return;
  throw new RatelabError(
    'INVALID_DECISION',
    `limiter: consume() returned ${describeValue(decision)}, not a Decision (allowed, limit, remaining, retryAfterMs, resetMs)`,
    { field: 'limiter' },
  );
}

/** Tells `onError` of `error`; an `onError` that throws is itself only warned about, never let out. */
function tell<Req extends IncomingMessage>(
  onError: (error: unknown, req: Req) => void,
  error: unknown,
  req: Req,
): void {
  try {
    onError(error, req);
  } catch (failure) {
    process.emitWarning(
      `rateLimit onError threw (${failure instanceof Error ? failure.message : String(failure)})`,
      'RatelabWarning',
    );
  }
}

/**
 * The limiter could not decide: returns true for fail `open` (the request passes), or
 * answers 503 for `closed` (with Retry-After when the limiter said when to come back).
 * A failure after the answer was begun (an `onLimited` that threw midway) can only end it.
 */
function failed(
  mode: FailMode,
  req: IncomingMessage,
  res: ServerResponse,
  at: { key: string | undefined; policy: string; retryAfterMs: number },
): boolean {
  const open = LETS_THROUGH[mode] && !res.headersSent;
  results.set(req, {
    outcome: LETS_THROUGH[mode] ? 'failed-open' : 'failed-closed',
    key: at.key,
    policy: at.policy,
    decision: undefined,
    overridden: false,
  });
  if (open) return true;
  const retryAfter = retryAfterSeconds(at.retryAfterMs);
  if (retryAfter !== undefined && !res.headersSent) res.setHeader('Retry-After', String(retryAfter));
  sendJson(res, 503, {
    error: 'rate_limiter_unavailable',
    message: 'The rate limiter could not decide; try again later.',
  });
  return false;
}

const NO_KEY_CHOICES: readonly unknown[] = [undefined, 'share', 'reject'];
const SHADOW_HEADER_CHOICES: readonly unknown[] = [undefined, 'none', 'as-enforced'];

/**
 * Refuses, when the middleware is made, an option that would otherwise fail every request
 * later: `INVALID_COST` for a `cost` that is neither a whole number >= 0 nor a function,
 * `INVALID_ARGUMENT` naming any other bad option. (`failMode` and `trustProxy` are checked
 * where they are read.)
 */
function checkOptions(options: RateLimitOptions<never>): void {
  if (typeof options.cost !== 'function' && options.cost !== undefined) checkCost(options.cost);
  if (!NO_KEY_CHOICES.includes(options.noKey)) {
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `noKey: expected 'share' or 'reject', got ${describeValue(options.noKey)}`,
      { field: 'noKey' },
    );
  }
  if (!SHADOW_HEADER_CHOICES.includes(options.shadowHeaders)) {
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `shadowHeaders: expected 'none' or 'as-enforced', got ${describeValue(options.shadowHeaders)}`,
      { field: 'shadowHeaders' },
    );
  }
  if (options.shadow !== undefined && typeof options.shadow !== 'boolean') {
    throw new RatelabError('INVALID_ARGUMENT', `shadow: expected true or false, got ${describeValue(options.shadow)}`, {
      field: 'shadow',
    });
  }
  for (const field of ['key', 'onLimited', 'onError', 'onDecision'] as const) {
    const value: unknown = options[field];
    if (value !== undefined && typeof value !== 'function') {
      throw new RatelabError('INVALID_ARGUMENT', `${field}: expected a function, got ${describeValue(value)}`, {
        field,
      });
    }
  }
  const ietf: unknown = options.headers?.ietf;
  const policyName =
    typeof ietf === 'object' && ietf !== null ? (ietf as { policyName?: unknown }).policyName : undefined;
  if (policyName !== undefined && typeof policyName !== 'string') {
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `headers.ietf.policyName: expected a string, got ${describeValue(policyName)}`,
      { field: 'headers.ietf.policyName' },
    );
  }
}

/** Where decisions come from: one limiter, or a registry's tiers. */
interface DecisionSource {
  readonly name: string;
  /** Every policy name its decisions can carry. */
  readonly policyNames: readonly string[];
  readonly failMode: FailMode | undefined;
  /** `inShadow`: the limiter (or tier) that decided is in shadow mode. */
  decide(key: string, cost: number): Promise<{ decision: MaybeReasoned; policy: PolicyInfo; inShadow: boolean }>;
}

function decisionSource(options: RateLimitOptions<never>): DecisionSource {
  const { limiter, registry } = options;
  if ((limiter === undefined) === (registry === undefined)) {
    throw new RatelabError('INVALID_ARGUMENT', 'rateLimit: expected exactly one of limiter and registry', {
      field: 'limiter',
    });
  }
  if (limiter !== undefined && typeof (limiter as Partial<LimiterLike> | null)?.consume !== 'function') {
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `limiter: expected an object with a consume(key, cost) method, got ${describeValue(limiter)}`,
      { field: 'limiter' },
    );
  }
  const ietf = options.headers?.ietf;
  const source = registry
    ? registrySource(registry)
    : limiterSource(limiter as LimiterLike, (typeof ietf === 'object' ? ietf.policyName : undefined) ?? 'default');
  // Names go into the IETF fields as Structured Field strings: refuse a bad one now, not per request.
  if (ietf) for (const name of source.policyNames) sfString(name);
  return source;
}

function limiterSource(limiter: LimiterLike, name: string): DecisionSource {
  const policy = policyInfo(name, limiter);
  const inShadow = limiter.enforce === false;
  return {
    name,
    policyNames: [name],
    failMode: limiter.failMode === undefined ? undefined : checkFailMode(limiter.failMode, 'limiter.failMode'),
    decide: async (key, cost) => ({ decision: await limiter.consume(key, cost), policy, inShadow }),
  };
}

function registrySource(registry: RateLimiterRegistry): DecisionSource {
  const policies = new Map<string, { policy: PolicyInfo; inShadow: boolean }>();
  for (const tier of registry.tiers) {
    const limiter = registry.limiterOf(tier);
    const policy = limiter === 'unlimited' ? { name: tier, limits: undefined } : policyInfo(tier, limiter);
    policies.set(tier, { policy, inShadow: registry.modeOf(tier) === 'shadow' });
  }
  return {
    name: 'tiers',
    policyNames: registry.tiers,
    failMode: undefined,
    decide: async (key, cost) => {
      const decision = registry.consume(key, cost);
      const { policy, inShadow } = policies.get(decision.tier) as { policy: PolicyInfo; inShadow: boolean };
      return { decision, policy, inShadow };
    },
  };
}

function policyInfo(name: string, limiter: LimiterLike): PolicyInfo {
  return limiter.policies === undefined
    ? { name, limits: limiter.limits }
    : { name, limits: limiter.limits, policies: limiter.policies };
}

function usableKey(key: unknown): string | undefined {
  return typeof key === 'string' && key !== '' ? key : undefined;
}

function limitedBody(decision: Decision, policy: string, retryAfter: number | undefined, cost: number): object {
  if (retryAfter === undefined) {
    return {
      error: 'cost_exceeds_limit',
      message: `This request costs ${cost}; policy "${policy}" admits at most ${decision.limit} at once, so it can never be admitted.`,
      policy,
    };
  }
  return { error: 'too_many_requests', message: `Rate limit exceeded; retry in ${retryAfter} s.`, policy, retryAfter };
}

function sendJson(res: ServerResponse, status: number, body: object): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** The default `onError`: one process warning per middleware, not one per failed request. */
function warnOnce(): (error: unknown) => void {
  let warned = false;
  return (error) => {
    if (warned) return;
    warned = true;
    const message = error instanceof Error ? error.message : String(error);
    process.emitWarning(
      `rate limiter failed (${message}); further failures of this middleware are not reported. Pass onError to log them.`,
      'RatelabWarning',
    );
  };
}
