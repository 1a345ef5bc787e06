import { createSystemClock, schedulerOf, type Clock, type ClockSource, type Scheduler } from '../core/clock.js';
import type { Decision } from '../core/decision.js';
import { RatelabError, describeValue } from '../core/errors.js';
import type { WaitOptions } from '../core/limiter.js';
import { readServerLimit, type HeadersLike, type ServerLimit } from '../core/server-limit.js';
import { AdaptiveBrain, type BrainOptions, type KeyInsight } from './adaptive-brain.js';
import { KeyWaiters, checkWaitOptions } from './key-waiters.js';

export type { AimdOptions, BrainOptions, KeyInsight, RejectLocallyOptions } from './adaptive-brain.js';

/** What the adaptive client reads of a response: its status and its header fields (a Fetch `Response` is one). */
export interface ResponseLike {
  status: number;
  headers?: HeadersLike;
}

/** `onThrottle`'s event: a throttling response (429, 503) and what the client does about it. */
export interface ThrottleEvent {
  key: string;
  status: number;
  /** The wait the server asked for (`Retry-After`, or a reset with nothing remaining), ms; absent when it named none (AIMD then). */
  retryAfterMs?: number;
  /** The key is paused for this long from now (the jitter included), ms; 0 when not paused. */
  pausedForMs: number;
  /** The pacing rate after it, requests per second (absent: unlimited). */
  ratePerSec?: number;
}

/** `onLearn`'s event: what a response changed in what the client knows of a key, or what was wrong with its fields. */
export interface LearnEvent {
  key: string;
  /** What the client now holds of the key. */
  insight: KeyInsight;
  /** Why it fired: a policy first announced or changed, an AIMD cut, or fields malformed or contradictory. */
  why: 'policy' | 'aimd' | 'problem';
  /** One line per malformed or contradictory field of this response (never thrown). */
  problems: string[];
}

/** Options of {@link createAdaptiveLimiter} (and of {@link adaptiveThrottle}). */
export interface AdaptiveLimiterOptions extends BrainOptions {
  /** Time and timers: a {@link Scheduler} (a `ManualClock` in tests) or a clock; default real time (`performance.now`, `setTimeout`). */
  clock?: ClockSource;
  /** Epoch ms, for HTTP-dates in a response without its own `Date` field; default the system clock. */
  epochClock?: Clock;
  /** Uniform in [0, 1): the jitter and SRE draws (default `Math.random`); inject a seeded one in tests. */
  random?: () => number;
  /** Called on every throttling response. */
  onThrottle?: (event: ThrottleEvent) => void;
  /** Called when a response teaches something (a policy, an AIMD cut) or its fields were malformed or contradictory. */
  onLearn?: (event: LearnEvent) => void;
}

/** What an adaptive client did, and what it learned. */
export interface AdaptiveStats {
  /** Requests sent (slots granted by `wait`). */
  sent: number;
  /** Throttling responses seen (429, 503). */
  throttled: number;
  /** Sends that were retries of a throttled request. */
  retried: number;
  /** Calls rejected locally (SRE, `REJECTED_LOCALLY`), never sent. */
  rejectedLocally: number;
  /** Per key: the learned policy, the pacing rate, the budget, the pause. */
  keys: Record<string, KeyInsight>;
}

/** `wait`'s options: {@link WaitOptions}, and whether the send is a retry (counted in `retried`). */
export interface AdaptiveWaitOptions extends WaitOptions {
  retry?: boolean;
}

/** `observe`'s options. */
export interface ObserveOptions {
  /** When the request was sent, on the limiter's clock (default now): a throttle of a request sent before the last rate cut does not cut it again. */
  sentAt?: number;
}

/**
 * An adaptive client's brain for calls that are not `fetch` (gRPC, SDKs): `wait(key, cost)`
 * before each request, `observe(key, response)` after it. {@link adaptiveThrottle} is this
 * around a fetch-shaped function.
 */
export interface AdaptiveLimiter {
  /**
   * Resolves when `cost` units (whole, >= 0; default 1) of `key` may be sent; the call is
   * counted as sent. Rejects with `WAIT_TOO_LONG` past `maxWaitMs`, `signal.reason` on
   * abort, `REJECTED_LOCALLY` when SRE throttling turns it away.
   */
  wait(key: string, cost?: number, options?: AdaptiveWaitOptions): Promise<void>;
  /** Learns from the response of a request of `key`; returns what its fields said (problems included, never thrown). */
  observe(key: string, response: ResponseLike, options?: ObserveOptions): ServerLimit;
  /** Counts and per-key insight. */
  stats(): AdaptiveStats;
  /** The limiter's scheduler (its time and timers). */
  readonly scheduler: Scheduler;
}

/** Whether a status throttles: 429 Too Many Requests, 503 Service Unavailable. */
export function isThrottleStatus(status: number): boolean {
  return status === 429 || status === 503;
}

/** Creates an {@link AdaptiveLimiter}: per-key queues that learn the server's limit from its responses. */
export function createAdaptiveLimiter(options: AdaptiveLimiterOptions = {}): AdaptiveLimiter {
  checkAdaptiveOptions(options);
  const scheduler = schedulerOf(options.clock);
  const epochClock = options.epochClock ?? createSystemClock();
  const brain = new AdaptiveBrain(options, options.random ?? Math.random);
  const counts = { sent: 0, throttled: 0, retried: 0, rejectedLocally: 0 };
  const waiters = new KeyWaiters<Decision>((key, cost) => brain.consume(key, cost ?? 1, scheduler.now()), {
    scheduler,
  });
  const { onThrottle, onLearn } = options;
  return {
    scheduler,
    wait(key, cost = 1, waitOptions = {}) {
      if (typeof key === 'string' && brain.rejectLocally(key, scheduler.now())) {
        counts.rejectedLocally++;
        return Promise.reject(
          new RatelabError(
            'REJECTED_LOCALLY',
            `wait(${describeValue(key)}): rejected locally (SRE throttling, p=${brain.rejectProbability(key, scheduler.now()).toFixed(2)}): the server has refused most recent requests`,
            { field: 'rejectLocally' },
          ),
        );
      }
      const { retry, ...rest } = waitOptions;
      return waiters.wait(key, cost, rest).then(() => {
        counts.sent++;
        if (retry) counts.retried++;
      });
    },
    observe(key, response, observeOptions = {}) {
      const now = scheduler.now();
      const status = typeof response?.status === 'number' ? response.status : 0;
      const limit = readServerLimit(response?.headers, epochClock());
      const throttled = isThrottleStatus(status);
      if (throttled) counts.throttled++;
      const learned = brain.learn(key, throttled, limit, now, observeOptions.sentAt ?? now);
      waiters.wake(key);
      if (throttled && onThrottle) {
        const insight = brain.insight(key, now);
        const event: ThrottleEvent = { key, status, pausedForMs: insight.pausedForMs };
        if (learned.retryAfterMs !== undefined) event.retryAfterMs = learned.retryAfterMs;
        if (insight.ratePerSec !== undefined) event.ratePerSec = insight.ratePerSec;
        onThrottle(event);
      }
      if (onLearn && (learned.policyChanged || learned.decreased || limit.problems.length > 0)) {
        const why = learned.policyChanged ? 'policy' : learned.decreased ? 'aimd' : 'problem';
        onLearn({ key, insight: brain.insight(key, now), why, problems: limit.problems });
      }
      return limit;
    },
    stats() {
      const now = scheduler.now();
      const keys: Record<string, KeyInsight> = {};
      for (const key of brain.keyNames()) keys[key] = brain.insight(key, now);
      return { ...counts, keys };
    },
  };
}

/** Which throttled requests are sent again: idempotent methods only (GET, HEAD, PUT, DELETE, OPTIONS, TRACE), all, or none. */
export type RetryPolicy = 'idempotent-only' | 'always' | 'never';

/** Options of {@link adaptiveThrottle}. */
export interface AdaptiveThrottleOptions<A extends unknown[]> extends AdaptiveLimiterOptions {
  /** The key a call's limit is learned under: default the URL's host (`api.example.com:443`), else `'default'`. */
  key?: (...args: A) => string;
  /** Which throttled requests are retried (default `'idempotent-only'`). */
  retry?: RetryPolicy;
  /** Retries of one call at most (whole, >= 0; default 3); then its last throttled response is returned. */
  maxRetries?: number;
  /** The longest one call waits in all, ms (>= 0; default 60000): a retry that would wait past it is not made, the throttled response is returned; a first send that would is rejected with `WAIT_TOO_LONG`. */
  maxWaitMs?: number;
  /** Aborting it rejects every call still waiting (with `signal.reason`); a call's own `init.signal` does too. */
  signal?: AbortSignal;
  /** A limiter to share (its brain, queues and counts) with other throttles or `wait` callers; its own options then apply. */
  limiter?: AdaptiveLimiter;
}

/** A throttled fetch: the wrapped function's signature, and `stats()`. */
export type AdaptiveFetch<A extends unknown[], R> = ((...args: A) => Promise<R>) & {
  /** What the client did and learned. */
  stats(): AdaptiveStats;
  /** Its limiter: `wait` and `observe` for calls made outside it that share its key's limit. */
  readonly limiter: AdaptiveLimiter;
};

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'TRACE']);
const DEFAULT_MAX_WAIT_MS = 60_000;
const DEFAULT_MAX_RETRIES = 3;

/**
 * Wraps a fetch-shaped function (`fetch`, or any `(input, init?) => Promise<{ status, headers }>`)
 * so its calls queue per key (per host by default) and respect the limit the server
 * announces: paused until a `Retry-After`, restarted paced at the learned rate, within the
 * announced remaining budget, with AIMD on throttling responses that say nothing, and
 * optional SRE local rejection. Throttled idempotent calls are retried (bounded by
 * `maxRetries` and `maxWaitMs`); every call ends with a real response, or rejects without
 * sending (`WAIT_TOO_LONG`, abort, `REJECTED_LOCALLY`). Loads nothing: time comes from the
 * `clock` option.
 */
export function adaptiveThrottle<
  A extends [input: unknown, init?: unknown, ...rest: unknown[]],
  R extends ResponseLike,
>(fetchLike: (...args: A) => Promise<R>, options: AdaptiveThrottleOptions<A> = {}): AdaptiveFetch<A, R> {
  if (typeof fetchLike !== 'function')
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `adaptiveThrottle(fetchLike): expected a function, got ${describeValue(fetchLike)}`,
      {
        field: 'fetchLike',
      },
    );
  checkThrottleOptions(options);
  const limiter = options.limiter ?? createAdaptiveLimiter(options);
  const { scheduler } = limiter;
  const retry = options.retry ?? 'idempotent-only';
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  const keyOf: (...args: A) => string = options.key ?? ((...args: A) => hostOf(args[0]));
  const throttled = async function (this: unknown, ...args: A): Promise<R> {
    const key = keyOf(...args);
    const [input, init] = args;
    const mayRetry = retry === 'always' || (retry === 'idempotent-only' && IDEMPOTENT.has(methodOf(input, init)));
    const signal = signalOf(init) ?? options.signal;
    const deadline = scheduler.now() + maxWaitMs;
    let last: R | undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        const left = Math.max(0, deadline - scheduler.now());
        await limiter.wait(key, 1, { maxWaitMs: left, retry: attempt > 0, ...(signal ? { signal } : {}) });
      } catch (error) {
        // A retry that cannot be made in time (or is turned away) ends with the response it retried.
        if (last !== undefined && error instanceof RatelabError) return last;
        throw error;
      }
      const sentAt = scheduler.now();
      const response = await fetchLike.apply(this, args);
      limiter.observe(key, response, { sentAt });
      if (!isThrottleStatus(response.status) || !mayRetry || attempt >= maxRetries) return response;
      last = response;
      await discardBody(response);
    }
  };
  return Object.assign(throttled, { stats: () => limiter.stats(), limiter });
}

/** The host of a URL given as a string, a URL or a Request; `'default'` when there is none. */
function hostOf(input: unknown): string {
  const text =
    typeof input === 'string'
      ? input
      : input instanceof URL
        ? input.href
        : typeof (input as { url?: unknown } | undefined)?.url === 'string'
          ? (input as { url: string }).url
          : undefined;
  if (text === undefined) return 'default';
  try {
    return new URL(text).host || 'default';
  } catch {
    return 'default';
  }
}

function methodOf(input: unknown, init: unknown): string {
  const fromInit = (init as { method?: unknown } | undefined)?.method;
  const fromInput = (input as { method?: unknown } | undefined)?.method;
  const method = typeof fromInit === 'string' ? fromInit : typeof fromInput === 'string' ? fromInput : 'GET';
  return method.toUpperCase();
}

function signalOf(init: unknown): AbortSignal | undefined {
  const signal = (init as { signal?: unknown } | undefined)?.signal;
  return typeof signal === 'object' && signal !== null && 'aborted' in signal ? (signal as AbortSignal) : undefined;
}

/** A retried response's body is read to its end (so the connection can be reused), and errors ignored. */
async function discardBody(response: ResponseLike): Promise<void> {
  const body = response as { bodyUsed?: boolean; arrayBuffer?: () => Promise<unknown> };
  if (typeof body.arrayBuffer === 'function' && body.bodyUsed === false) {
    try {
      await body.arrayBuffer();
    } catch {
      // The body is not needed: only the next response is returned.
    }
  }
}

function fraction(field: string, value: unknown, low: number, high: number, openLow: boolean): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || Number.isNaN(value) || value > high || value < low || (openLow && value === low))
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `${field}: expected a number ${openLow ? '>' : '>='} ${low} and <= ${high}, got ${describeValue(value)}`,
      { field },
    );
}

function positive(field: string, value: unknown, finite = true): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !(value > 0) || (finite && !Number.isFinite(value)))
    throw new RatelabError('INVALID_ARGUMENT', `${field}: expected a number > 0, got ${describeValue(value)}`, {
      field,
    });
}

function checkAdaptiveOptions(options: AdaptiveLimiterOptions): void {
  if (typeof options !== 'object' || options === null)
    throw new RatelabError('INVALID_ARGUMENT', `options: expected an object, got ${describeValue(options)}`, {
      field: 'options',
    });
  fraction('safety', options.safety, 0, 1, true);
  fraction('jitter', options.jitter, 0, 1, false);
  fraction('aimd.decrease', options.aimd?.decrease, 0, 0.999, true);
  positive('aimd.increase', options.aimd?.increase);
  positive('aimd.minRatePerSec', options.aimd?.minRatePerSec);
  if (options.rejectLocally !== undefined) {
    const k = options.rejectLocally?.k;
    if (typeof k !== 'number' || !(k >= 1) || !Number.isFinite(k))
      throw new RatelabError('INVALID_ARGUMENT', `rejectLocally.k: expected a number >= 1, got ${describeValue(k)}`, {
        field: 'rejectLocally.k',
      });
    positive('rejectLocally.windowMs', options.rejectLocally.windowMs);
  }
  if (options.initial !== undefined) {
    positive('initial.limit', options.initial?.limit);
    positive('initial.windowMs', options.initial?.windowMs);
    positive('initial.burst', options.initial?.burst);
    if (options.initial?.limit === undefined || options.initial.windowMs === undefined)
      throw new RatelabError('INVALID_ARGUMENT', 'initial: expected { limit, windowMs, burst? }', { field: 'initial' });
  }
  for (const field of ['random', 'epochClock', 'onThrottle', 'onLearn'] as const) {
    if (options[field] !== undefined && typeof options[field] !== 'function')
      throw new RatelabError(
        'INVALID_ARGUMENT',
        `${field}: expected a function, got ${describeValue(options[field])}`,
        {
          field,
        },
      );
  }
}

function checkThrottleOptions<A extends unknown[]>(options: AdaptiveThrottleOptions<A>): void {
  checkAdaptiveOptions(options);
  if (options.retry !== undefined && !['idempotent-only', 'always', 'never'].includes(options.retry))
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `retry: expected 'idempotent-only', 'always' or 'never', got ${describeValue(options.retry)}`,
      { field: 'retry' },
    );
  const maxRetries = options.maxRetries;
  if (maxRetries !== undefined && !(Number.isInteger(maxRetries) && maxRetries >= 0))
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `maxRetries: expected a whole number >= 0, got ${describeValue(maxRetries)}`,
      {
        field: 'maxRetries',
      },
    );
  checkWaitOptions({ maxWaitMs: options.maxWaitMs, signal: options.signal });
  if (options.key !== undefined && typeof options.key !== 'function')
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `key: expected a function of the call's arguments, got ${describeValue(options.key)}`,
      {
        field: 'key',
      },
    );
  if (options.limiter !== undefined && typeof options.limiter?.wait !== 'function')
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `limiter: expected createAdaptiveLimiter(), got ${describeValue(options.limiter)}`,
      {
        field: 'limiter',
      },
    );
}
