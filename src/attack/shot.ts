import type { IncomingHttpHeaders } from 'node:http';

/** What came back for one request. */
export interface Shot {
  /** Wall ms after the start (scenario time 0) when the request was sent. */
  sentMs: number;
  key: string;
  /** A scenario event, or a retry at a 429's Retry-After; for a probe, the index of the 429 it checks. */
  probeOf: number | undefined;
  /** HTTP status, or undefined when no response came (see `error`). */
  status: number | undefined;
  /**
   * Why no complete response came: `ECONNREFUSED`, `ECONNRESET`, ..., `timeout` (cut off
   * at `timeoutMs`), or {@link ABORTED} (cut off by the run's own stop, not the endpoint).
   */
  error: string | undefined;
  /** Wall ms from sending to the end of the response (or the error). */
  latencyMs: number;
  /**
   * Wall ms from sending to the response's status line and headers; undefined when none
   * came. A response cut off in its body has it, but no `status`.
   */
  headersMs: number | undefined;
  /** The rate-limit fields as received (absent ones undefined). */
  headers: RateLimitFields;
}

/** The response fields the attack reads and checks. */
export interface RateLimitFields {
  retryAfter?: string;
  limit?: string;
  remaining?: string;
  reset?: string;
  rateLimit?: string;
  rateLimitPolicy?: string;
}

/**
 * The error of a request cut off because the run stopped (`--max-time`, a signal), not
 * because of the endpoint: counted apart from the endpoint's errors.
 */
export const ABORTED = 'aborted';

/** Whether the endpoint admitted the request (any 2xx). */
export function isAdmitted(shot: Shot): boolean {
  return shot.status !== undefined && shot.status >= 200 && shot.status < 300;
}

/**
 * The Retry-After of a shot in wall ms: its delay-seconds times 1000; Infinity when the
 * field is absent or not a whole number (an HTTP-date is not expected from a rate limiter).
 */
export function retryAfterMsOf(shot: Shot): number {
  const value = shot.headers.retryAfter?.trim();
  return value !== undefined && /^\d+$/.test(value) ? Number(value) * 1000 : Infinity;
}

/** The rate-limit fields of a response's headers; a repeated header's values joined by `, `. */
export function rateLimitFields(headers: IncomingHttpHeaders): RateLimitFields {
  const one = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  return {
    retryAfter: one('retry-after'),
    limit: one('x-ratelimit-limit'),
    remaining: one('x-ratelimit-remaining'),
    reset: one('x-ratelimit-reset'),
    rateLimit: one('ratelimit'),
    rateLimitPolicy: one('ratelimit-policy'),
  };
}
