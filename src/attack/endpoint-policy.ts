import { parseList, type Member } from '../core/structured-field.js';
import type { RateLimitFields } from './shot.js';

/** Where the limit of a {@link JudgedPolicy} came from. */
export type LimitSource = '--limit' | 'RateLimit-Policy' | 'X-RateLimit-Limit' | 'scenario';
/** Where the window of a {@link JudgedPolicy} came from. */
export type WindowSource = '--window' | 'RateLimit-Policy' | 'scenario';

/** The policy an endpoint is judged against, in wall-clock time, and where each half came from. */
export interface JudgedPolicy {
  /** Requests per window, at least 1. */
  limit: number;
  /** Wall-clock ms, above 0. */
  windowMs: number;
  source: { limit: LimitSource; window: WindowSource };
  /**
   * Every policy the endpoint advertised, when its `RateLimit-Policy` lists several, each
   * with `q` and `w`, and no flag was given (a key held to several limits at once): each is
   * judged for its own worst window. The first is `limit` and `windowMs`.
   */
  limits?: readonly AdvertisedLimit[];
}

/** One policy of a `RateLimit-Policy` field: its name, `q`, and `w` in wall ms. */
export interface AdvertisedLimit {
  name: string;
  limit: number;
  windowMs: number;
}

/** What the user passed: `--limit` and `--window` (either may be missing). */
export interface GivenPolicy {
  limit?: number;
  windowMs?: number;
}

/**
 * The policy to judge an endpoint by, from the flags and one response's fields:
 * - `--limit` and `--window` both given: those;
 * - `--window` alone: the limit from `RateLimit-Policy`'s `q`, else from `X-RateLimit-Limit`;
 * - neither: `RateLimit-Policy`'s `q` and `w` (draft-ietf-httpapi-ratelimit-headers:
 *   `"name";q=100;w=60`, the first policy listed), which needs `w`.
 * Undefined when the fields do not complete the policy (see {@link missingPolicy}).
 * `X-RateLimit-Limit` carries no window, so it needs `--window`.
 */
export function readPolicy(fields: RateLimitFields, given: GivenPolicy): JudgedPolicy | undefined {
  if (given.limit !== undefined && given.windowMs !== undefined)
    return { limit: given.limit, windowMs: given.windowMs, source: { limit: '--limit', window: '--window' } };
  const advertised = advertisedPolicy(fields);
  if (given.windowMs !== undefined) {
    if (advertised)
      return {
        limit: advertised.limit,
        windowMs: given.windowMs,
        source: { limit: 'RateLimit-Policy', window: '--window' },
      };
    const legacy = parseWholeNumber(fields.limit);
    return legacy === undefined
      ? undefined
      : { limit: legacy, windowMs: given.windowMs, source: { limit: 'X-RateLimit-Limit', window: '--window' } };
  }
  if (advertised?.windowMs === undefined) return undefined;
  const judged: JudgedPolicy = {
    limit: advertised.limit,
    windowMs: advertised.windowMs,
    source: { limit: 'RateLimit-Policy', window: 'RateLimit-Policy' },
  };
  const all = advertisedLimits(fields);
  return all.length > 1 ? { ...judged, limits: all } : judged;
}

/**
 * Every policy of a `RateLimit-Policy` field that has a name, `q` and `w`
 * (draft-ietf-httpapi-ratelimit-headers: `"burst";q=20;w=1, "hourly";q=1000;w=3600`), in
 * order; none when the field is no Structured Field list or some policy lacks one of them,
 * since then the endpoint's limits are not all known.
 */
export function advertisedLimits(fields: RateLimitFields): AdvertisedLimit[] {
  const list = fields.rateLimitPolicy === undefined ? undefined : parseList(fields.rateLimitPolicy);
  if (!list?.ok) return [];
  const limits = list.value.map(limitOf);
  return limits.every((limit) => limit !== undefined) ? limits : [];
}

function limitOf(member: Member): AdvertisedLimit | undefined {
  if (member.kind !== 'item' || (member.item.kind !== 'string' && member.item.kind !== 'token')) return undefined;
  const quota = quotaOf(member);
  if (quota?.windowMs === undefined) return undefined;
  return { name: member.item.value, limit: quota.limit, windowMs: quota.windowMs };
}

/** A policy member's `q` (a whole number >= 1) and its `w` in ms when it has one (>= 1 s); undefined without a usable `q`. */
function quotaOf(member: Member): { limit: number; windowMs: number | undefined } | undefined {
  const [q, w] = [member.params.get('q'), member.params.get('w')];
  if (q?.kind !== 'integer' || q.value < 1) return undefined;
  return { limit: q.value, windowMs: w?.kind === 'integer' && w.value >= 1 ? w.value * 1000 : undefined };
}

/**
 * Why {@link readPolicy} found no policy in `fields` (undefined: no decided response) and
 * what to pass: the flag to name, and one sentence saying what the response carried.
 */
export function missingPolicy(
  fields: RateLimitFields | undefined,
  given: GivenPolicy,
): { flag: '--limit' | '--window'; advice: string } {
  if (fields === undefined)
    return { flag: '--limit', advice: 'no 2xx or 429 response to read the policy from: pass --limit N --window D' };
  const advertised = advertisedPolicy(fields);
  const legacy = parseWholeNumber(fields.limit);
  if (given.windowMs === undefined && (advertised || legacy !== undefined)) {
    const seen = advertised
      ? `RateLimit-Policy ${JSON.stringify(fields.rateLimitPolicy)} has no window (w)`
      : `X-RateLimit-Limit ${legacy} carries no window`;
    return {
      flag: '--window',
      advice: `the endpoint's ${seen}: pass --window D (and --limit N to override the limit)`,
    };
  }
  return {
    flag: '--limit',
    advice: 'the endpoint sends neither RateLimit-Policy nor X-RateLimit-Limit: pass --limit N --window D',
  };
}

/**
 * The first policy of a `RateLimit-Policy` field: its `q`, and its `w` in ms when present.
 * Undefined when the field is no Structured Field list (RFC 8941: a field that does not
 * parse is ignored) or its first policy has no usable `q`.
 */
function advertisedPolicy(fields: RateLimitFields): { limit: number; windowMs: number | undefined } | undefined {
  const list = fields.rateLimitPolicy === undefined ? undefined : parseList(fields.rateLimitPolicy);
  const first = list?.ok ? list.value[0] : undefined;
  return first === undefined ? undefined : quotaOf(first);
}

/** A header value that is a whole number >= 1, else undefined. */
function parseWholeNumber(value: string | undefined): number | undefined {
  const text = value?.trim();
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  const number = Number(text);
  return number >= 1 && Number.isSafeInteger(number) ? number : undefined;
}
