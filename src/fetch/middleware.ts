// Rate limiting over the Fetch API's Request and Response: Bun.serve, Deno.serve, Workers,
// Next.js, Hono. The decision is ratelab/http's (src/http/limit-core.ts); this module only
// reads a Request and writes a Response. Runtime-neutral: no `node:` module, no `process`.
import { RatelabError } from '../core/errors.js';
import { isThenable } from '../core/thenable.js';
import { addressKey, ipv6Subnet } from '../http/address-key.js';
import {
  limitEngine,
  type LimitEngine,
  type LimitedInfo,
  type RateLimitResult,
  type SharedLimitOptions,
  type Verdict,
} from '../http/limit-core.js';
import { runtimeAddress } from './keys.js';
import { handOver } from './take-fields.js';

/** What a Fetch `key` (and `cost`, `onError`, `onDecision`) is given besides the request. */
export interface FetchInfo {
  /** The client address the runtime gave (see `runtimeAddress`), or undefined (Workers, Next.js: use a header key). */
  readonly address: string | undefined;
  /** What the runtime passed the handler after the request (Bun's server, Deno's info, a Worker's env and ctx). */
  readonly args: readonly unknown[];
}

/**
 * Options of {@link rateLimitFetch} and {@link decide}: the shared ones (limiter or
 * registry, key, cost, headers, failMode, onError, shadow... see `SharedLimitOptions`),
 * each callback given the request and its {@link FetchInfo}. The default key is
 * `info.address` (IPv6 by its /64, see `ipv6Subnet`); no forwarded header is ever read
 * unless `key` reads it (`headerKey`, `cfConnectingIp`).
 */
export interface FetchRateLimitOptions extends SharedLimitOptions<[request: Request, info: FetchInfo]> {
  /**
   * The response to a denied request instead of the default JSON 429; the rate-limit
   * fields are added to it unless it has them. If it throws or rejects, that is a limiter
   * failure: `onError` is told and the fail mode applies.
   */
  onLimited?: (request: Request, info: LimitedInfo) => Response | Promise<Response>;
}

/** What {@link decide} answers for one request. */
export interface FetchDecision {
  /** True when the request goes on to the handler (admitted, decided in shadow, or the limiter failed open). */
  readonly allowed: boolean;
  /** The rate-limit fields (X-RateLimit-*, IETF RateLimit/RateLimit-Policy, Retry-After) to put on the handler's response. */
  readonly headers: Headers;
  /** Only when the request must not reach the handler: the 429, the 400 (`noKey: 'reject'`) or the fail mode's 503, with `headers` on it. */
  readonly response?: Response;
  /** How the request was decided (outcome, key, policy, decision), as `onDecision` is told. */
  readonly result: RateLimitResult;
}

/** A function deciding Fetch requests under one set of options: see {@link fetchDecider}. */
export type FetchDecider = (request: Request, info?: Partial<FetchInfo>) => Promise<FetchDecision>;

/** A Fetch handler: what `Bun.serve`'s `fetch`, `Deno.serve` and a Worker's `fetch` take. */
export type FetchHandler<Rest extends unknown[]> = (request: Request, ...rest: Rest) => Response | Promise<Response>;

/** A warning where there is no `process`: the console, as every runtime has. */
function warn(message: string): void {
  // eslint-disable-next-line no-console -- the one channel every runtime has (workerd has no process)
  console.warn(`RatelabWarning: ${message}`);
}

/**
 * Checks `options` now (a bad one throws `INVALID_ARGUMENT` or `INVALID_COST` naming it)
 * and returns the function that decides each request. `info.address` is the client address
 * for the default key; `decide` and `rateLimitFetch` fill it from the runtime.
 */
export function fetchDecider(options: FetchRateLimitOptions): FetchDecider {
  const engine = fetchEngine<[Request, FetchInfo]>(
    options,
    (subnet) => (_request, info) => (info.address === undefined ? undefined : addressKey(info.address, subnet)),
  );
  const { onLimited } = options;
  const limited = onLimited && ((args: [Request, FetchInfo], info: LimitedInfo) => onLimited(args[0], info));
  return async (request, info = {}) => {
    const full: FetchInfo = { address: info.address, args: info.args ?? [] };
    return fetchDecision(await judge(engine, [request, full], request, limited));
  };
}

/** The default key: `info.address`, IPv6 grouped by `subnet` bits. */
function defaultKey(subnet: number | false): (request: Request, info: FetchInfo) => string | undefined {
  return (_request, info) => (info.address === undefined ? undefined : addressKey(info.address, subnet));
}

/** `options.onLimited` as `judge` calls it. */
function limitedOf(
  options: FetchRateLimitOptions,
): ((args: [Request, FetchInfo], info: LimitedInfo) => Response | Promise<Response>) | undefined {
  const { onLimited } = options;
  return onLimited && ((args, info) => onLimited(args[0], info));
}

/**
 * The engine under `options`, refusing what a Fetch middleware has no use for:
 * `trustProxy` (no forwarded header is read unless `key` reads it).
 */
export function fetchEngine<Args extends unknown[]>(
  options: SharedLimitOptions<Args> & { onLimited?: unknown; trustProxy?: unknown },
  defaultKey: (subnet: number | false) => (...args: Args) => string | undefined,
): LimitEngine<Args> {
  if (options?.trustProxy !== undefined) {
    throw new RatelabError(
      'INVALID_ARGUMENT',
      'trustProxy: ratelab/fetch reads no X-Forwarded-For; pass key: headerKey(...) or cfConnectingIp() for a header your proxy sets',
      { field: 'trustProxy' },
    );
  }
  return limitEngine<Args>(options, { defaultKey: () => defaultKey(ipv6Subnet(options.ipv6Subnet)), warn });
}

/** A request decided: the verdict and, when the request must not go on, the response to send. */
export interface Judged {
  readonly verdict: Verdict;
  readonly response: Response | undefined;
}

/**
 * Decides a request through `engine`: the verdict, the custom `onLimited` response for a
 * 429 (one that throws is a limiter failure), `onDecision` told. At once when the limiter
 * answers at once: no promise on a memory limiter's path.
 */
export function judge<Args extends unknown[]>(
  engine: LimitEngine<Args>,
  args: Args,
  request: Request,
  onLimited: ((args: Args, info: LimitedInfo) => Response | Promise<Response>) | undefined,
): Judged | Promise<Judged> {
  const verdict = engine.decide(args);
  return isThenable<Verdict>(verdict)
    ? Promise.resolve(verdict).then((decided) => settle(engine, args, request, onLimited, decided))
    : settle(engine, args, request, onLimited, verdict);
}

function settle<Args extends unknown[]>(
  engine: LimitEngine<Args>,
  args: Args,
  request: Request,
  onLimited: ((args: Args, info: LimitedInfo) => Response | Promise<Response>) | undefined,
  verdict: Verdict,
): Judged | Promise<Judged> {
  if (!verdict.pass && verdict.limited !== undefined && onLimited)
    return limitedBy(engine, args, request, onLimited, verdict, verdict.limited);
  const response = verdict.pass ? undefined : jsonResponse(verdict, request);
  engine.report(verdict.result, args);
  return { verdict, response };
}

/** The custom `onLimited` response; one that throws (or is no Response) is a limiter failure. */
async function limitedBy<Args extends unknown[]>(
  engine: LimitEngine<Args>,
  args: Args,
  request: Request,
  onLimited: (args: Args, info: LimitedInfo) => Response | Promise<Response>,
  denied: Verdict,
  info: LimitedInfo,
): Promise<Judged> {
  let verdict = denied;
  let response: Response | undefined;
  try {
    const answer: unknown = await onLimited(args, info);
    if (!(answer instanceof Response))
      throw new RatelabError('INVALID_ARGUMENT', 'onLimited: expected it to return a Response', {
        field: 'onLimited',
      });
    response = withFields(answer, verdict.fields);
  } catch (error) {
    verdict = engine.failure(error, args, verdict.result);
    response = verdict.pass ? undefined : jsonResponse(verdict, request);
  }
  engine.report(verdict.result, args);
  return { verdict, response };
}

/** What {@link decide} answers, from a request judged. */
function fetchDecision({ verdict, response }: Judged): FetchDecision {
  const headers = fieldHeaders(verdict.fields);
  return response === undefined
    ? { allowed: verdict.pass, headers, result: verdict.result }
    : { allowed: false, headers, response, result: verdict.result };
}

function jsonResponse(verdict: Verdict & { pass: false }, request: Request): Response {
  const headers = fieldHeaders(verdict.fields);
  headers.set('Content-Type', 'application/json; charset=utf-8');
  return new Response(request.method === 'HEAD' ? null : JSON.stringify(verdict.body), {
    status: verdict.status,
    headers,
  });
}

function fieldHeaders(fields: readonly (readonly [string, string])[]): Headers {
  const headers = new Headers();
  for (const [name, value] of fields) headers.set(name, value);
  return headers;
}

/**
 * `response` with `fields` set where it has none of that name (the handler's own win).
 * A response whose headers are immutable (from `fetch()`, `Response.redirect`) is copied.
 */
export function withFields(response: Response, fields: readonly (readonly [string, string])[]): Response {
  if (fields.length === 0) return response;
  const { headers } = response;
  let answer = response;
  let target = headers;
  for (const [name, value] of fields) {
    if (headers.has(name)) continue;
    try {
      target.set(name, value);
    } catch (error) {
      // Immutable headers refuse the first set: copy the response once and go on there.
      if (answer !== response) throw error;
      answer = new Response(response.body, response);
      target = answer.headers;
      target.set(name, value);
    }
  }
  return answer;
}

const deciders = new WeakMap<FetchRateLimitOptions, FetchDecider>();

/**
 * Decides `request` under `options`, for a framework that answers itself (Next.js
 * `middleware.ts`, a router): `{ allowed, headers, response? }`. `response` (the 429, the
 * 400 of `noKey: 'reject'`, or the fail mode's 503) is there only when the request must not
 * reach the handler; otherwise put `headers` on your response. Keep `options` one object
 * for the life of the server: the checked options are kept per object (a new object each
 * call is checked each call, and still shares its limiter's state). A bad option rejects
 * naming it. `info.address` (or what the runtime passed the handler, `info.args`) gives
 * the default key; without either, pass `key`.
 */
export async function decide(
  request: Request,
  options: FetchRateLimitOptions,
  info: Partial<FetchInfo> = {},
): Promise<FetchDecision> {
  let decider = deciders.get(options);
  if (decider === undefined) {
    decider = fetchDecider(options);
    deciders.set(options, decider);
  }
  const args = info.args ?? [];
  return decider(request, { address: info.address ?? runtimeAddress(request, args), args });
}

/**
 * Wraps a Fetch handler (`Bun.serve({ fetch })`, `Deno.serve(handler)`, a Worker's
 * `fetch`) in rate limiting: the request is decided first; one that must not go on is
 * answered (429 with Retry-After, 400, or 503, see {@link decide}) and the handler is not
 * called; otherwise the handler's response gets the rate-limit fields. What the runtime
 * passes after the request reaches the handler unchanged, and gives the default key its
 * address (Bun's server, Deno's info). Options are checked now: a bad one throws naming
 * it. A handler that throws keeps its error (the runtime's own error handling gets it):
 * it is never a 429 nor a limiter failure. A handler may write the fields itself, from
 * `takeRateLimitFields(request)`: its Response is then left as it is (the cheaper path,
 * see `takeRateLimitFields`). The answer is a Response at once when both the
 * limiter (a memory limiter) and the handler answer at once, else a promise of one.
 */
export function rateLimitFetch<Rest extends unknown[]>(
  handler: FetchHandler<Rest>,
  options: FetchRateLimitOptions,
): (request: Request, ...rest: Rest) => Response | Promise<Response> {
  if (typeof handler !== 'function') {
    throw new RatelabError('INVALID_ARGUMENT', 'handler: expected a function (request) => Response', {
      field: 'handler',
    });
  }
  const engine = fetchEngine<[Request, FetchInfo]>(options, defaultKey);
  const limited = limitedOf(options);
  // Outside the decision: an error of the handler is the application's, not the limiter's.
  const respond = ({ verdict, response }: Judged, request: Request, rest: Rest): Response | Promise<Response> => {
    if (response !== undefined) return response;
    return handOver(handler, request, rest, verdict.fields, withFields);
  };
  return (request, ...rest) => {
    const args: [Request, FetchInfo] = [request, { address: runtimeAddress(request, rest), args: rest }];
    const judged = judge(engine, args, request, limited);
    return isThenable<Judged>(judged)
      ? Promise.resolve(judged).then((decided) => respond(decided, request, rest))
      : respond(judged, request, rest);
  };
}
