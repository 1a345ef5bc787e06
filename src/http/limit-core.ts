// What every ratelab rate-limit middleware decides with, whatever its request type:
// node:http's and Express's (middleware.ts), Fastify's (over it), and the Fetch API's
// (src/fetch/: rateLimitFetch, decide, rateLimitHono). The options and their checks, the
// decision, shadow mode, fail modes, onError and onDecision live here once; each adapter
// only reads its request and writes its response. Runtime-neutral: no `node:` module and
// no `process` (warnings go through the adapter's `warn`), so it runs on workerd too.
import type { Decision } from '../core/decision.js';
import type { Outcome } from '../core/decision-event.js';
import { RatelabError, describeValue } from '../core/errors.js';
import { checkFailMode, type DecisionReason, type FailMode } from '../core/fail-over.js';
import type { Consumer } from '../core/limiter.js';
import { checkCost } from '../core/options.js';
import type { Limits, NamedLimits } from '../core/policy.js';
import { isThenable } from '../core/thenable.js';
import type { RateLimiterRegistry, TierDecision } from '../tiers/registry.js';
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

/**
 * How one request was decided, for logging and counting: see `rateLimitResult` and
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

/** What a custom `onLimited` handler gets besides the request (and, on node:http, the response). */
export interface LimitedInfo {
  decision: Decision;
  policy: string;
  /** Whole seconds the client must wait, or undefined when the request can never be admitted. */
  retryAfter: number | undefined;
  cost: number;
}

/** The rate-limit fields of a response decided in shadow: see `SharedLimitOptions.shadowHeaders`. */
export type ShadowHeaders = 'none' | 'as-enforced';

/**
 * The options every ratelab middleware takes, `Args` being what its callbacks are given
 * (node:http: the request; the Fetch API: the request and its `FetchInfo`; Hono: the
 * context). Exactly one of `limiter` and `registry`.
 */
export interface SharedLimitOptions<Args extends unknown[]> {
  /** One limiter for every key. */
  limiter?: LimiterLike;
  /** One limiter per tier: the key is the client id, the policy name is its tier. */
  registry?: RateLimiterRegistry;
  /** The limiter key of a request (default: the client address, see `ipv6Subnet`); undefined or '' when it has none. */
  key?: (...args: Args) => string | undefined;
  /** Units a request takes: a whole number >= 0, or a function of the request. Default 1. */
  cost?: number | ((...args: Args) => number);
  /** Which header fields to send; default: the X-RateLimit-* fields only. */
  headers?: HeaderOptions;
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
   * What to do when the limiter (or `key`, `cost`, `onLimited`) throws, or `consume`
   * answers something that is not a Decision: `open` lets the request through,
   * `closed` and `local` answer 503. Overrides the limiter's own declared `failMode`;
   * default that, else `closed`.
   */
  failMode?: FailMode;
  /** Told of every such failure (`INVALID_DECISION` for a non-Decision, `REDIS_KEY_ERROR` for a Redis key whose state is unusable), and of an `onDecision` that threw; default: one warning (a process warning on Node, `console.warn` elsewhere). An `onError` that throws is only warned about. */
  onError?: (error: unknown, ...args: Args) => void;
  /**
   * Shadow mode: the middleware never answers a request itself, every request goes on to
   * the application. Every decision is still made (state taken as when enforcing) and reported: a
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
   * Told of every request once it is decided (the result `rateLimitResult` returns on
   * node:http, `decide` on the Fetch API), before the request goes on or is answered; for
   * logs and metrics (see `overridden` for counting a middleware in shadow). One that
   * throws changes nothing; `onError` is told.
   */
  onDecision?: (result: RateLimitResult, ...args: Args) => void;
}

/** The key under which requests without a usable key share one quota. */
export const SHARED_NO_KEY = '\u0000no-key';

/**
 * What the middleware makes of one request. `pass`: it goes on to the application, with
 * `fields` (the rate-limit header fields) set on its response. Otherwise the middleware
 * answers `status` (400 no key, 429 denied, 503 the limiter failed closed) with `fields`
 * and the JSON `body`; a 429 carries `limited`, what a custom `onLimited` is given.
 */
export type Verdict =
  | { readonly pass: true; readonly result: RateLimitResult; readonly fields: readonly HeaderField[] }
  | {
      readonly pass: false;
      readonly result: RateLimitResult;
      readonly fields: readonly HeaderField[];
      readonly status: 400 | 429 | 503;
      readonly body: object;
      readonly limited?: LimitedInfo;
    };

/** The decisions of one middleware: see {@link limitEngine}. */
export interface LimitEngine<Args extends unknown[]> {
  /**
   * Decides one request: at once when the limiter answers at once (the memory limiters), a
   * promise when it answers one. Never throws nor rejects: a failure is told to `onError`
   * and becomes the fail mode's verdict.
   */
  decide(args: Args): Verdict | Promise<Verdict>;
  /**
   * A failure after `decide` (a custom `onLimited` threw): `onError` is told, and the
   * fail mode's verdict replaces `result`'s.
   */
  failure(error: unknown, args: Args, result: RateLimitResult): Verdict;
  /** Tells `onDecision` of the request's final result (an `onDecision` that throws: `onError`). */
  report(result: RateLimitResult, args: Args): void;
}

/** What an adapter gives the engine besides the options. */
export interface EngineAdapter<Args extends unknown[]> {
  /** The key when the options have no `key`: the client address (built by the adapter after the engine checked the options). */
  defaultKey: () => (...args: Args) => string | undefined;
  /** Where a warning goes: a process warning on Node, `console.warn` elsewhere. */
  warn: (message: string) => void;
}

/**
 * Checks `options` (refusing a bad one now, naming it, not on every request later) and
 * returns the middleware's decisions. `onLimited` is the adapter's to call (its signature
 * is the adapter's); the engine only checks that it is a function.
 */
export function limitEngine<Args extends unknown[]>(
  options: SharedLimitOptions<Args> & { onLimited?: unknown },
  adapter: EngineAdapter<Args>,
): LimitEngine<Args> {
  checkOptions(options);
  const source = decisionSource(options);
  const shadow = options.shadow === true;
  const chosen = options.failMode === undefined ? (source.failMode ?? 'closed') : checkFailMode(options.failMode);
  // In shadow nothing is refused: a limiter that cannot decide lets the request through.
  const failMode = shadow ? 'open' : chosen;
  const keyOf = options.key ?? adapter.defaultKey();
  const onError = options.onError ?? warnOnce(adapter.warn);
  // One object for every request's shadowAware call.
  const fieldSettings = { headers: options.headers ?? {}, shadowHeaders: options.shadowHeaders ?? 'none' };

  const tell = (error: unknown, args: Args): void => {
    try {
      onError(error, ...args);
    } catch (failure) {
      adapter.warn(`rateLimit onError threw (${failure instanceof Error ? failure.message : String(failure)})`);
    }
  };
  const failure = (error: unknown, args: Args, at: { key: string | undefined; policy: string }): Verdict => {
    tell(error, args);
    return failedVerdict(failMode, at, Infinity);
  };

  /**
   * Decides a request; throws (or rejects) when `key`, `cost` or the limiter throws, or the
   * limiter's answer is no Decision. `at` tells the failure where it was. Sync when the
   * limiter is: no promise on a memory limiter's path.
   */
  const decideRequest = (args: Args, at: { key: string | undefined; policy: string }): Verdict | Promise<Verdict> => {
    const key = usableKey(keyOf(...args));
    at.key = key;
    if (key === undefined && options.noKey === 'reject') {
      const result: RateLimitResult = {
        outcome: 'no-key',
        key,
        policy: source.name,
        decision: undefined,
        overridden: false,
      };
      return shadow
        ? { pass: true, result, fields: [] }
        : { pass: false, result, fields: [], status: 400, body: NO_KEY };
    }
    const cost = typeof options.cost === 'function' ? options.cost(...args) : (options.cost ?? 1);
    const decision = source.decide(key ?? SHARED_NO_KEY, cost);
    return isThenable<MaybeReasoned>(decision)
      ? Promise.resolve(decision).then((answer) => judged(answer, key, cost, at))
      : judged(decision, key, cost, at);
  };

  /** The verdict on a limiter's answer. */
  const judged = (
    decision: MaybeReasoned,
    key: string | undefined,
    cost: number,
    at: { key: string | undefined; policy: string },
  ): Verdict => {
    checkDecision(decision);
    const placed = source.placeOf(decision);
    at.policy = placed.policy.name;
    if (decision.reason === 'key-error') {
      // One key's state is unusable: the operator must hear of it (the limiter only says so
      // in the decision), and the request takes the fail mode like any limiter failure.
      throw new RatelabError(
        'REDIS_KEY_ERROR',
        `limiter: Redis cannot decide key ${JSON.stringify(key ?? SHARED_NO_KEY)}: ${String(decision.error)}`,
        { field: 'limiter' },
      );
    }
    if (decision.reason === 'fail-open' || decision.reason === 'fail-closed') {
      // A Redis limiter decided by its own fail mode: no quota is known, so no rate-limit fields.
      const mode = decision.reason === 'fail-open' || shadow ? 'open' : 'closed';
      return failedVerdict(mode, { key, policy: placed.policy.name }, decision.retryAfterMs);
    }
    // A denial in shadow (the middleware's, or the limiter's own `shadowDenied`) passes.
    const { policy } = placed;
    const overridden = shadow && !decision.allowed;
    const shadowDenied = overridden || decision.shadowDenied === true;
    const outcome = shadowDenied ? 'shadow-denied' : decision.allowed ? 'allowed' : 'denied';
    const result: RateLimitResult = { outcome, key, policy: policy.name, decision, overridden };
    const inShadow = shadow || placed.inShadow || shadowDenied;
    const fields = shadowAware(decision, policy, fieldSettings, shadowDenied, inShadow);
    if (decision.allowed || shadowDenied) return { pass: true, result, fields };
    const retryAfter = retryAfterSeconds(decision.retryAfterMs);
    const limited: LimitedInfo = { decision, policy: policy.name, retryAfter, cost };
    return {
      pass: false,
      result,
      fields,
      status: 429,
      body: limitedBody(decision, policy.name, retryAfter, cost),
      limited,
    };
  };

  return {
    decide(args) {
      const at: { key: string | undefined; policy: string } = { key: undefined, policy: source.name };
      try {
        const verdict = decideRequest(args, at);
        return isThenable<Verdict>(verdict)
          ? Promise.resolve(verdict).then(undefined, (error: unknown) => failure(error, args, at))
          : verdict;
      } catch (error) {
        return failure(error, args, at);
      }
    },
    failure: (error, args, result) => failure(error, args, result),
    report(result, args) {
      if (!options.onDecision) return;
      try {
        options.onDecision(result, ...args);
      } catch (error) {
        tell(error, args);
      }
    },
  };
}

const NO_KEY = { error: 'no_client_key', message: 'The request carries no client identity to rate-limit by.' };
const UNAVAILABLE = {
  error: 'rate_limiter_unavailable',
  message: 'The rate limiter could not decide; try again later.',
};

/**
 * The limiter could not decide: fail `open` passes (no rate-limit fields: no quota is
 * known), `closed` answers 503, with Retry-After when the limiter said when to come back.
 */
function failedVerdict(mode: FailMode, at: { key: string | undefined; policy: string }, retryAfterMs: number): Verdict {
  const open = LETS_THROUGH[mode];
  const result: RateLimitResult = {
    outcome: open ? 'failed-open' : 'failed-closed',
    key: at.key,
    policy: at.policy,
    decision: undefined,
    overridden: false,
  };
  if (open) return { pass: true, result, fields: [] };
  const retryAfter = retryAfterSeconds(retryAfterMs);
  const fields: HeaderField[] = retryAfter === undefined ? [] : [['Retry-After', String(retryAfter)]];
  return { pass: false, result, fields, status: 503, body: UNAVAILABLE };
}

/**
 * The rate-limit fields of a decision. Decided in shadow: none (`shadowHeaders: 'none'`),
 * or those enforcing would have sent (a shadow denial's as a denial's) without
 * `Retry-After`, since the request went through.
 */
function shadowAware(
  decision: Decision,
  policy: PolicyInfo,
  settings: { headers: HeaderOptions; shadowHeaders: ShadowHeaders },
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
  if (
    typeof fields?.allowed === 'boolean' &&
    isNumber(fields.limit) &&
    isNumber(fields.remaining) &&
    isNumber(fields.retryAfterMs) &&
    isNumber(fields.resetMs)
  )
    return;
  throw new RatelabError(
    'INVALID_DECISION',
    `limiter: consume() returned ${describeValue(decision)}, not a Decision (allowed, limit, remaining, retryAfterMs, resetMs)`,
    { field: 'limiter' },
  );
}

function isNumber(value: unknown): boolean {
  return typeof value === 'number' && !Number.isNaN(value);
}

const NO_KEY_CHOICES: readonly unknown[] = [undefined, 'share', 'reject'];
const SHADOW_HEADER_CHOICES: readonly unknown[] = [undefined, 'none', 'as-enforced'];

/**
 * Refuses, when the middleware is made, an option that would otherwise fail every request
 * later: `INVALID_COST` for a `cost` that is neither a whole number >= 0 nor a function,
 * `INVALID_ARGUMENT` naming any other bad option. (`failMode`, `ipv6Subnet` and `trustProxy`
 * are checked where they are read.)
 */
function checkOptions(options: SharedLimitOptions<never> & { onLimited?: unknown }): void {
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
  /** The limiter's answer: at once when the limiter answers at once, else a promise. */
  decide(key: string, cost: number): MaybeReasoned | PromiseLike<MaybeReasoned>;
  /** The policy a Decision (checked) was made under: one limiter's, or the tier's that decided. */
  placeOf(decision: Decision): Placed;
}

/** The policy a decision was made under; `inShadow`: the limiter (or tier) that decided is in shadow mode. */
interface Placed {
  readonly policy: PolicyInfo;
  readonly inShadow: boolean;
}

function decisionSource(options: SharedLimitOptions<never>): DecisionSource {
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
  const placed: Placed = { policy: policyInfo(name, limiter), inShadow: limiter.enforce === false };
  return {
    name,
    policyNames: [name],
    failMode: limiter.failMode === undefined ? undefined : checkFailMode(limiter.failMode, 'limiter.failMode'),
    decide: (key, cost) => limiter.consume(key, cost),
    placeOf: () => placed,
  };
}

function registrySource(registry: RateLimiterRegistry): DecisionSource {
  const policies = new Map<string, Placed>();
  for (const tier of registry.tiers) {
    const limiter = registry.limiterOf(tier);
    const policy = limiter === 'unlimited' ? { name: tier, limits: undefined } : policyInfo(tier, limiter);
    policies.set(tier, { policy, inShadow: registry.modeOf(tier) === 'shadow' });
  }
  return {
    name: 'tiers',
    policyNames: registry.tiers,
    failMode: undefined,
    decide: (key, cost) => registry.consume(key, cost),
    placeOf: (decision) => policies.get((decision as TierDecision).tier) as Placed,
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

/** The default `onError`: one warning per middleware, not one per failed request. */
function warnOnce(warn: (message: string) => void): (error: unknown) => void {
  let warned = false;
  return (error) => {
    if (warned) return;
    warned = true;
    const message = error instanceof Error ? error.message : String(error);
    warn(
      `rate limiter failed (${message}); further failures of this middleware are not reported. Pass onError to log them.`,
    );
  };
}
