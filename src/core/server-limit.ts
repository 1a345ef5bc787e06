import { readAnnouncement, type Announcement } from './header-fields.js';

/**
 * What a client learns of a server's limit from one response: the rate-limit fields of
 * every convention (see {@link readAnnouncement}) reduced to what a client acts on, with
 * one line per field that was malformed or that contradicted another. Runtime-neutral: the
 * core and the audit read the fields through the same parser (src/core/header-fields.ts).
 *
 * Which figure wins when the fields disagree: `Retry-After` first (the IETF draft: a client
 * honours it over `RateLimit`), then the newest convention sent (draft-08+ `RateLimit` /
 * `RateLimit-Policy`, then draft-07, draft-06 `RateLimit-*`, then `X-RateLimit-*`).
 */

/** A response's header fields: a Fetch `Headers` (anything with `forEach`), or a record (names in any case). */
export type HeadersLike =
  | { forEach(callback: (value: string, name: string) => void): void }
  | Record<string, string | readonly string[] | undefined>;

/** The server's policy as announced: `limit` requests per `windowMs`, `burst` when stated. */
export interface ServerPolicy {
  /** Requests per window, >= 0. */
  limit: number;
  /** The window, ms (> 0). */
  windowMs: number;
  /** A bucket's capacity, requests, when the server states it (`ratelab-burst`, `burst`). */
  burst?: number;
  /** The field it came from (`RateLimit-Policy`). */
  field: string;
}

/** What one response tells a client. Every time is ms from when the response was read. */
export interface ServerLimit {
  /** Wait this long before sending again, ms (>= 0): `Retry-After`, which wins over every other field. */
  retryAfterMs?: number;
  /** The policy, when a `RateLimit-Policy` states a quota and a window (the strictest, with several). */
  policy?: ServerPolicy;
  /** The quota the server states (`limit`, `q`), requests, even without a window. */
  limit?: number;
  /** What is left of the quota, requests (the binding policy's, with several). */
  remaining?: number;
  /** Time until the quota is restored, ms (>= 0). */
  resetMs?: number;
  /** True when any rate-limit field was present. */
  announced: boolean;
  /** One line per malformed or contradictory field (`X-RateLimit-Remaining 7 > X-RateLimit-Limit 5`); never thrown. */
  problems: string[];
}

/** Lower-case field names to one value (repeated fields joined by `, `). */
export function headerRecord(headers: HeadersLike | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers === undefined || headers === null || typeof headers !== 'object') return out;
  const add = (value: unknown, name: string): void => {
    if (typeof name !== 'string') return;
    const text = Array.isArray(value) ? value.join(', ') : typeof value === 'string' ? value : undefined;
    if (text === undefined) return;
    const lower = name.toLowerCase();
    out[lower] = out[lower] === undefined ? text : `${out[lower]}, ${text}`;
  };
  if (typeof (headers as { forEach?: unknown }).forEach === 'function' && !Array.isArray(headers)) {
    (headers as { forEach(callback: (value: string, name: string) => void): void }).forEach(add);
  } else {
    for (const [name, value] of Object.entries(headers)) add(value, name);
  }
  return out;
}

/** Figures that differ by less than this (ms) between conventions are the same time written with different rounding. */
const TIME_TOLERANCE_MS = 1000;

/**
 * Reads what a response says of the server's limit.
 * @param headers the response's fields
 * @param epochMs the time the response was read, epoch ms: HTTP-dates and epoch resets are
 *   taken against the response's own `Date` field when it has one, else against this
 * @returns the figures a client acts on, and one line per problem (never throws)
 */
export function readServerLimit(headers: HeadersLike | undefined, epochMs: number): ServerLimit {
  const record = headerRecord(headers);
  const serverDate = record['date'] === undefined ? NaN : Date.parse(record['date']);
  const announcement = readAnnouncement(record, Number.isFinite(serverDate) ? serverDate : epochMs);
  const problems = announcement.malformed.map((bad) => `${bad.field}: ${bad.why}`);
  const result: ServerLimit = { announced: announcement.readings.length > 0, problems };
  if (announcement.retryAfterMs !== undefined) result.retryAfterMs = Math.max(0, announcement.retryAfterMs);
  if (announcement.limit !== undefined) result.limit = announcement.limit;
  if (announcement.remaining !== undefined) result.remaining = announcement.remaining;
  if (announcement.resetMs !== undefined) {
    if (announcement.resetMs < 0)
      problems.push(`${announcement.fields.reset}: a reset already past (${Math.round(announcement.resetMs)} ms)`);
    result.resetMs = Math.max(0, announcement.resetMs);
  }
  const policy = strictestPolicy(announcement);
  if (policy) {
    result.policy = policy;
    result.limit ??= policy.limit;
  }
  contradictions(announcement, result, problems);
  return result;
}

/** The announced policy of the lowest rate (quota per window); policies without a window are skipped. */
function strictestPolicy(announcement: Announcement): ServerPolicy | undefined {
  let best: ServerPolicy | undefined;
  for (const announced of announcement.policies) {
    if (announced.windowMs === undefined || announced.windowMs <= 0) continue;
    const candidate: ServerPolicy = { limit: announced.quota, windowMs: announced.windowMs, field: 'RateLimit-Policy' };
    if (announced.burst !== undefined) candidate.burst = announced.burst;
    if (!best || candidate.limit / candidate.windowMs < best.limit / best.windowMs) best = candidate;
  }
  return best;
}

/** Fields that disagree: each a line; the preferred figure (see the module's doc) stands. */
function contradictions(announcement: Announcement, result: ServerLimit, problems: string[]): void {
  const { readings, fields } = announcement;
  for (const figure of ['limit', 'remaining'] as const) {
    const values = readings.filter((r) => r.figure === figure);
    const other = values.find((r) => r.value !== values[0]?.value);
    if (values[0] && other)
      problems.push(
        `${values[0].field} ${values[0].value} and ${other.field} ${other.value} disagree; ${fields[figure]} wins`,
      );
  }
  const resets = readings.filter((r) => r.figure === 'reset' && r.convention !== 'x-ratelimit');
  const far = resets.find((r) => Math.abs(r.value - (resets[0]?.value ?? 0)) > TIME_TOLERANCE_MS);
  if (resets[0] && far)
    problems.push(
      `${resets[0].field} ${Math.round(resets[0].value)} ms and ${far.field} ${Math.round(far.value)} ms disagree; ${fields.reset} wins`,
    );
  if (result.remaining !== undefined && result.limit !== undefined && result.remaining > result.limit)
    problems.push(
      `${fields.remaining} ${result.remaining} is more than ${fields.limit ?? 'the quota'} ${result.limit}`,
    );
  if (result.retryAfterMs !== undefined && result.resetMs !== undefined && result.remaining === 0) {
    if (result.resetMs + TIME_TOLERANCE_MS < result.retryAfterMs)
      problems.push(
        `Retry-After ${Math.round(result.retryAfterMs)} ms is later than ${fields.reset} ${Math.round(result.resetMs)} ms; Retry-After wins`,
      );
  }
}
