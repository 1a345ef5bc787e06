import type { Decision, LimitDecision } from '../core/decision.js';
import { RatelabError, describeValue } from '../core/errors.js';
import { isHeaderSafeName } from '../core/names.js';
import type { Limits, NamedLimits } from '../core/policy.js';

/** Which rate-limit fields a response carries. */
export interface HeaderOptions {
  /** `X-RateLimit-Limit`, `-Remaining`, `-Reset` (express-rate-limit's convention). Default true. */
  legacy?: boolean;
  /**
   * The IETF fields of draft-ietf-httpapi-ratelimit-headers-10, `RateLimit-Policy` and
   * `RateLimit`. Default false. `policyName` names a single limiter's policy (default
   * "default"); with a registry the policy name is always the tier name.
   */
  ietf?: boolean | { policyName?: string };
}

/** The policy a decision was made under, as the IETF fields name and describe it. */
export interface PolicyInfo {
  name: string;
  /** Unknown for a limiter that does not expose its limits: then no `RateLimit-Policy`. */
  limits: Limits | undefined;
  /**
   * The limiter's limits, named (`limiter.policies`): with several, each is a policy of its
   * own in the IETF fields, under its own name. Absent or one: `name` and `limits` describe it.
   */
  policies?: readonly NamedLimits[];
}

/** A header name and its value. */
export type HeaderField = readonly [name: string, value: string];

const MS_PER_SECOND = 1000;

/**
 * Whole seconds, rounded up: a client waiting this long has waited at least `ms`.
 * RFC 9110 10.2.3 allows only a non-negative whole number in `Retry-After`.
 */
function secondsUp(ms: number): number {
  return Math.ceil(ms / MS_PER_SECOND);
}

/**
 * The `Retry-After` of a denial, in whole seconds: `retryAfterMs` rounded up, at least 1
 * (a denied client must never be told 0), or undefined when the request can never be
 * admitted (`retryAfterMs` Infinity: its cost exceeds the policy's capacity).
 */
export function retryAfterSeconds(retryAfterMs: number): number | undefined {
  if (!Number.isFinite(retryAfterMs)) return undefined;
  return Math.max(1, secondsUp(retryAfterMs));
}

/**
 * The rate-limit header fields for one decision. Every value is derived from that
 * decision, so the headers never disagree with the status:
 * - `X-RateLimit-Limit` = `decision.limit`, `X-RateLimit-Remaining` = `decision.remaining`,
 *   `X-RateLimit-Reset` = seconds until the full quota is back (`resetMs`, rounded up).
 * - `RateLimit-Policy: "name";q=limit;w=window-seconds` (`w` only when the window is a whole
 *   number of seconds, since the draft has no sub-second precision; `ratelab-burst` when a
 *   bucket's capacity differs from its limit).
 * - `RateLimit: "name";r=remaining;t=seconds`, `t` being the `Retry-After` of a denial (so
 *   Retry-After is never earlier than `t`, as the draft asks) and the time until the full
 *   quota is back otherwise (never earlier than the next unit returns); `t` is left out when
 *   nothing is to be restored or the request can never be admitted.
 * - `Retry-After` on a denial, see {@link retryAfterSeconds}.
 * A decision of several limits (`decision.limits`) lists one policy per limit in each IETF
 * field, under the limit's name and in the limiter's order (`"burst";q=20;w=1, "hourly";q=1000;w=3600`
 * and `"burst";r=19;t=1, "hourly";r=999;t=3600`): each with its own remaining and its own `t`
 * (a limit that denies: its own wait, so none is later than `Retry-After`; one that would
 * admit: its time to full quota). `X-RateLimit-*` show the binding limit (the decision's
 * `limit`, `remaining`, `resetMs`) and `Retry-After` the composite's wait, the longest.
 * An unlimited decision (`limit` Infinity) has no quota to describe: it gets no fields.
 */
export function rateLimitHeaders(decision: Decision, policy: PolicyInfo, options: HeaderOptions = {}): HeaderField[] {
  if (!Number.isFinite(decision.limit)) return [];
  const fields: HeaderField[] = [];
  const remaining = Math.max(0, Math.floor(decision.remaining));
  const retryAfter = decision.allowed ? undefined : retryAfterSeconds(decision.retryAfterMs);
  if (options.legacy ?? true) {
    fields.push(['X-RateLimit-Limit', String(decision.limit)]);
    fields.push(['X-RateLimit-Remaining', String(remaining)]);
    fields.push(['X-RateLimit-Reset', String(secondsUp(decision.resetMs))]);
  }
  if (options.ietf) {
    const parts = decision.limits;
    if (parts !== undefined && parts.length > 1) {
      const named = policy.policies;
      if (named?.length === parts.length)
        fields.push(['RateLimit-Policy', named.map((limit) => policyItem(sfString(limit.name), limit)).join(', ')]);
      fields.push(['RateLimit', parts.map((part) => serviceLimitItem(sfString(part.name), part)).join(', ')]);
    } else {
      const name = sfString(policy.name);
      if (policy.limits) fields.push(['RateLimit-Policy', policyItem(name, policy.limits)]);
      fields.push(['RateLimit', serviceLimitItem(name, decision)]);
    }
  }
  if (retryAfter !== undefined) fields.push(['Retry-After', String(retryAfter)]);
  return fields;
}

function policyItem(name: string, limits: Limits): string {
  let item = `${name};q=${limits.limit}`;
  if (limits.windowMs % MS_PER_SECOND === 0) item += `;w=${limits.windowMs / MS_PER_SECOND}`;
  if (limits.capacity !== limits.limit) item += `;ratelab-burst=${limits.capacity}`;
  return item;
}

/**
 * One `RateLimit` item from an answer: the decision's own, or one limit's of several. `t`
 * is the answer's Retry-After when it denies, its time to full quota when it admits.
 */
function serviceLimitItem(name: string, answer: Decision | LimitDecision): string {
  const item = `${name};r=${Math.max(0, Math.floor(answer.remaining))}`;
  if (!answer.allowed) {
    const retryAfter = retryAfterSeconds(answer.retryAfterMs);
    return retryAfter === undefined ? item : `${item};t=${retryAfter}`;
  }
  return answer.resetMs > 0 ? `${item};t=${secondsUp(answer.resetMs)}` : item;
}

/**
 * A Structured Field String (RFC 9651 3.3.3): printable ASCII only, with `"` and `\`
 * escaped. Throws `INVALID_ARGUMENT` for a name that cannot be one.
 */
export function sfString(text: string): string {
  if (!isHeaderSafeName(text)) {
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `policy name: expected printable ASCII for the RateLimit fields, got ${describeValue(text)}`,
      { field: 'policyName' },
    );
  }
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
