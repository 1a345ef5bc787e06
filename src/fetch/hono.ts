// Hono's middleware, without importing Hono: a Hono middleware is a plain `(c, next)`
// function, and the parts of its context used here are the Fetch request and response.
import { isThenable } from '../core/thenable.js';
import type { LimitedInfo, SharedLimitOptions } from '../http/limit-core.js';
import { addressKey } from '../http/address-key.js';
import { runtimeAddress } from './keys.js';
import { fetchEngine, judge, withFields, type Judged } from './middleware.js';

/**
 * The parts of a Hono `Context` the middleware uses: the Fetch request (`req.raw`), the
 * runtime's env (Bun's server, Deno's info, `@hono/node-server`'s `incoming`: the default
 * key's address) and the response, which it reads and may replace after `next()`.
 */
export interface HonoContextLike {
  readonly req: { readonly raw: Request };
  readonly env?: unknown;
  res: Response;
}

/**
 * Options of {@link rateLimitHono}: the shared ones (see `SharedLimitOptions`), each
 * callback given the Hono context `c`. The default key is the address the runtime gave
 * (`c.env`: Bun, Deno, `@hono/node-server`), IPv6 by its /64; on Workers pass
 * `key: cfConnectingIp()`.
 */
export interface HonoRateLimitOptions<C extends HonoContextLike = HonoContextLike> extends SharedLimitOptions<[c: C]> {
  /** The response to a denied request instead of the JSON 429 (the rate-limit fields are added); one that throws is a limiter failure. */
  onLimited?: (c: C, info: LimitedInfo) => Response | Promise<Response>;
}

/**
 * Rate limiting as a Hono middleware: `app.use(rateLimitHono({ limiter }))`. A request
 * that must not go on is answered (429 with Retry-After, 400, or the fail mode's 503)
 * without calling `next()`; otherwise `next()` runs and the response gets the rate-limit
 * fields (those it set itself win). An error of a later handler stays Hono's (its
 * `onError`); it is never a 429. Options are checked now: a bad one throws naming it.
 */
export function rateLimitHono<C extends HonoContextLike = HonoContextLike>(
  options: HonoRateLimitOptions<C>,
): (c: C, next: () => Promise<void>) => Promise<Response | void> {
  const engine = fetchEngine<[C]>(options, (subnet) => (c) => {
    const address = runtimeAddress(c.req.raw, [c.env]);
    return address === undefined ? undefined : addressKey(address, subnet);
  });
  const { onLimited } = options;
  const limited = onLimited && ((args: [C], info: LimitedInfo) => onLimited(args[0], info));
  return async (c, next) => {
    const judged = judge(engine, [c], c.req.raw, limited);
    const { verdict, response } = isThenable<Judged>(judged) ? await judged : judged;
    if (response !== undefined) return response;
    await next();
    const answered = withFields(c.res, verdict.fields);
    if (answered !== c.res) c.res = answered;
  };
}
