import { parseDictionary, parseList, type BareItem, type Member, type Parameters } from './structured-field.js';

/**
 * Reads what one response's rate-limit fields announce, whatever convention the limiter
 * follows, into one shape that remembers which field said what (verdicts are named by it):
 * - `Retry-After` (RFC 9110 10.2.3): delay-seconds or an HTTP-date.
 * - `X-RateLimit-Limit`, `-Remaining`, `-Reset` (also `X-Rate-Limit-*`): the de facto
 *   convention; `Reset` comes as seconds from now, epoch seconds, epoch ms or a date.
 * - draft-ietf-httpapi-ratelimit-headers-06: `RateLimit-Limit`, `-Remaining`, `-Reset`
 *   (delta-seconds) and `RateLimit-Policy: 100;w=60` (a list, one item per policy).
 * - draft-07: one `RateLimit: limit=100, remaining=99, reset=5` (a dictionary) and the same policy.
 * - draft-08 to -10: `RateLimit: "name";r=50;t=30` and `RateLimit-Policy: "name";q=100;w=60`
 *   (lists of named items with parameters).
 */

/** Where a figure came from. */
export type Convention = 'retry-after' | 'x-ratelimit' | 'ietf-draft6' | 'ietf-draft7' | 'ietf-draft8';

/**
 * What a field announces: the wait before a retry, the quota of the window, what is left of
 * it, and the time until it resets.
 */
export type Figure = 'retryAfter' | 'limit' | 'remaining' | 'reset';

/**
 * How a time was written: seconds from now (`delay-seconds`), an epoch time in seconds or in
 * milliseconds, or a date (HTTP-date, ISO 8601, or JavaScript's `Date#toString`).
 */
export type TimeForm = 'delay-seconds' | 'epoch-seconds' | 'epoch-ms' | 'date';

/** One figure one field announced. */
export interface Reading {
  figure: Figure;
  /**
   * Requests for `limit` and `remaining`; for `retryAfter` and `reset`, ms from when the
   * request was sent (negative for a time already past).
   */
  value: number;
  /**
   * The field as the verdicts name it: its canonical spelling (`X-RateLimit-Remaining`), and
   * for a field carrying several figures the field and the key (`RateLimit r`, `RateLimit reset`).
   */
  field: string;
  convention: Convention;
  /** For `retryAfter` and `reset`: how the time was written. */
  form?: TimeForm;
  /** For draft-08+ `RateLimit`: the name of the item the figure came from. */
  policy?: string;
}

/** One policy `RateLimit-Policy` announces. */
export interface AnnouncedPolicy {
  /** Requests per window (`q`, or the item itself in draft-06/07). */
  quota: number;
  /** The window (`w` seconds), ms; absent when not stated. */
  windowMs?: number;
  /** The item's name (draft-08+). */
  name?: string;
  /** A bucket's capacity when stated (`burst`, or ratelab's `ratelab-burst`). */
  burst?: number;
}

/** A field whose value could not be read as its convention defines it. */
export interface MalformedField {
  /** The field (as in {@link Reading.field}). */
  field: string;
  /** The value as received. */
  value: string;
  /** What is wrong, and how the value was read anyway when it could be ("read as 250 ms"). */
  why: string;
}

/** The fields that gave the preferred figures of an {@link Announcement}. */
export interface AnnouncementFields {
  retryAfter?: string;
  limit?: string;
  remaining?: string;
  reset?: string;
  policy?: string;
}

/** Everything one response announced. */
export interface Announcement {
  /** The wait before a retry, ms from the request (`Retry-After`). */
  retryAfterMs?: number;
  /** The quota, requests: from the newest convention sent (draft-08+, -07, -06, then `X-RateLimit-*`). */
  limit?: number;
  /** What is left of the quota, requests (same preference). For draft-08+: the item with the least left. */
  remaining?: number;
  /** Time until the quota resets, ms from the request (same preference). */
  resetMs?: number;
  /** How {@link resetMs} was written. */
  resetForm?: TimeForm;
  /** Every policy `RateLimit-Policy` lists, in order. */
  policies: AnnouncedPolicy[];
  /** Which field gave each preferred figure above. */
  fields: AnnouncementFields;
  /** Every figure every field announced, `Retry-After` first, then `X-RateLimit-*`, then the IETF fields. */
  readings: Reading[];
  /** Fields that were not what their convention defines (a fraction in Retry-After, junk, ...). */
  malformed: MalformedField[];
}

/** The convention groups a report names as missing: `Retry-After`, `X-RateLimit-*`, the IETF fields. */
export type ConventionGroup = 'retry-after' | 'x-ratelimit' | 'ietf';

const MS_PER_SECOND = 1000;

/** Above this a number in `X-RateLimit-Reset` is an epoch time in ms (1e12 ms is Sept 2001). */
const EPOCH_MS_ABOVE = 1e12;
/** Above this (and not epoch ms) it is an epoch time in seconds (1e9 s is Sept 2001). */
const EPOCH_SECONDS_ABOVE = 1e9;

/** Preferred first when conventions disagree: the newest draft, then older, then the de facto one. */
const PREFERENCE: readonly Convention[] = ['retry-after', 'ietf-draft8', 'ietf-draft7', 'ietf-draft6', 'x-ratelimit'];

const WHOLE = /^[0-9]+$/;
const NUMBER = /^[0-9]+(\.[0-9]+)?$/;
const FRACTION = /^[0-9]*\.[0-9]+$/;
const MONTH = '(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
/** IMF-fixdate, RFC 850 and asctime dates, and `Date#toString`: a month name and a time of day. */
const HTTP_STYLE_DATE = new RegExp(`\\b${MONTH}\\b.*\\b[0-9]{2}:[0-9]{2}:[0-9]{2}\\b`);
const HAS_ZONE = /\b(GMT|UTC|UT)\b|[+-][0-9]{4}\b/;
const ISO_DATE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?(Z|[+-][0-9]{2}:?[0-9]{2})?$/;
const ISO_ZONE = /(Z|[+-][0-9]{2}:?[0-9]{2})$/;

/** The draft-07 dictionary's keys and what each announces. */
const DRAFT7_KEYS = { limit: 'limit', remaining: 'remaining', reset: 'reset' } as const satisfies Record<
  string,
  Figure
>;

/**
 * Reads one response's rate-limit fields.
 * @param headers the fields by lower-case name (a repeated field's values joined by `, `), as
 *   `ProbeShot.headers` keeps them
 * @param epochMs when the request was sent, epoch ms: dates and epoch times are taken relative to it
 * @returns the announcement; a field that cannot be read is listed in `malformed`, never thrown
 */
export function readAnnouncement(headers: Record<string, string>, epochMs: number): Announcement {
  const out = new Collector(epochMs);
  readRetryAfter(headers['retry-after'], out);
  readXRateLimit(headers, out);
  readDraft6(headers, out);
  readRateLimit(headers['ratelimit'], out);
  readPolicy(headers['ratelimit-policy'], out);
  return out.announcement();
}

/**
 * The convention group a field belongs to, by lower-case name; undefined for a field of none.
 * @param name a field name, lower case
 * @returns its group
 */
export function conventionGroup(name: string): ConventionGroup | undefined {
  if (name === 'retry-after') return 'retry-after';
  if (name.startsWith('x-ratelimit-') || name.startsWith('x-rate-limit-')) return 'x-ratelimit';
  if (name === 'ratelimit' || name.startsWith('ratelimit-')) return 'ietf';
  return undefined;
}

/** Gathers readings while the fields are read, and picks the preferred figures at the end. */
class Collector {
  readonly readings: Reading[] = [];
  readonly policies: AnnouncedPolicy[] = [];
  readonly malformed: MalformedField[] = [];

  constructor(readonly epochMs: number) {}

  add(reading: Reading): void {
    this.readings.push(reading);
  }

  bad(field: string, value: string, why: string): void {
    this.malformed.push({ field, value, why });
  }

  announcement(): Announcement {
    const result: Announcement = {
      policies: this.policies,
      fields: {},
      readings: this.readings,
      malformed: this.malformed,
    };
    if (this.policies.length > 0) result.fields.policy = 'RateLimit-Policy';
    const retryAfter = this.preferred('retryAfter');
    if (retryAfter) [result.retryAfterMs, result.fields.retryAfter] = [retryAfter.value, retryAfter.field];
    const limit = this.preferred('limit');
    if (limit) [result.limit, result.fields.limit] = [limit.value, limit.field];
    const remaining = this.preferred('remaining');
    if (remaining) [result.remaining, result.fields.remaining] = [remaining.value, remaining.field];
    const reset = this.preferred('reset');
    if (reset) [result.resetMs, result.resetForm, result.fields.reset] = [reset.value, reset.form, reset.field];
    return result;
  }

  private preferred(figure: Figure): Reading | undefined {
    for (const convention of PREFERENCE) {
      const reading = this.readings.find((r) => r.figure === figure && r.convention === convention);
      if (reading) return reading;
    }
    return undefined;
  }
}

function readRetryAfter(text: string | undefined, out: Collector): void {
  if (text === undefined) return;
  const field = 'Retry-After';
  const value = text.trim();
  const base = { figure: 'retryAfter', field, convention: 'retry-after' } as const;
  if (WHOLE.test(value)) {
    out.add({ ...base, value: Number(value) * MS_PER_SECOND, form: 'delay-seconds' });
    return;
  }
  if (FRACTION.test(value)) {
    const ms = Number(value) * MS_PER_SECOND;
    out.bad(field, text, `a fraction: delay-seconds is a whole number (RFC 9110 10.2.3); read as ${ms} ms`);
    out.add({ ...base, value: ms, form: 'delay-seconds' });
    return;
  }
  const date = parseDate(value);
  if (date === undefined) {
    out.bad(field, text, 'neither delay-seconds nor an HTTP-date');
    return;
  }
  if (!HTTP_STYLE_DATE.test(value)) out.bad(field, text, 'a date, but not an HTTP-date (RFC 9110 5.6.7); read anyway');
  out.add({ ...base, value: date - out.epochMs, form: 'date' });
}

function readXRateLimit(headers: Record<string, string>, out: Collector): void {
  const [prefix, spelling] =
    headers['x-ratelimit-limit'] !== undefined ||
    headers['x-ratelimit-remaining'] !== undefined ||
    headers['x-ratelimit-reset'] !== undefined
      ? ['x-ratelimit-', 'X-RateLimit-']
      : ['x-rate-limit-', 'X-Rate-Limit-'];
  const convention = 'x-ratelimit';
  readCount(headers[`${prefix}limit`], `${spelling}Limit`, 'limit', convention, out);
  readCount(headers[`${prefix}remaining`], `${spelling}Remaining`, 'remaining', convention, out);
  readReset(headers[`${prefix}reset`], `${spelling}Reset`, convention, out);
}

function readDraft6(headers: Record<string, string>, out: Collector): void {
  const convention = 'ietf-draft6';
  readCount(headers['ratelimit-limit'], 'RateLimit-Limit', 'limit', convention, out);
  readCount(headers['ratelimit-remaining'], 'RateLimit-Remaining', 'remaining', convention, out);
  readReset(headers['ratelimit-reset'], 'RateLimit-Reset', convention, out);
}

function readCount(
  text: string | undefined,
  field: string,
  figure: 'limit' | 'remaining',
  convention: Convention,
  out: Collector,
): void {
  if (text === undefined) return;
  const value = text.trim();
  if (WHOLE.test(value)) out.add({ figure, value: Number(value), field, convention });
  else out.bad(field, text, 'not a whole number');
}

/**
 * `X-RateLimit-Reset` and draft-06 `RateLimit-Reset`. The draft asks delta-seconds; the de
 * facto field is written every way, told apart by magnitude (a delay of 1e9 s is 31 years).
 */
function readReset(text: string | undefined, field: string, convention: Convention, out: Collector): void {
  if (text === undefined) return;
  const value = text.trim();
  const time = readTime(value, out.epochMs);
  if (!time) {
    out.bad(field, text, 'neither seconds, an epoch time nor a date');
    return;
  }
  out.add({ figure: 'reset', value: time.ms, field, convention, form: time.form });
  if (convention === 'x-ratelimit') return;
  if (time.form !== 'delay-seconds')
    out.bad(field, text, `${time.form}, where the draft asks delta-seconds; read anyway`);
  else if (!WHOLE.test(value))
    out.bad(field, text, `a fraction, where the draft asks whole delta-seconds; read anyway`);
}

/** A time in any form a reset is written in, as ms from `epochMs`. */
function readTime(value: string, epochMs: number): { ms: number; form: TimeForm } | undefined {
  if (NUMBER.test(value)) {
    const n = Number(value);
    if (n > EPOCH_MS_ABOVE) return { ms: n - epochMs, form: 'epoch-ms' };
    if (n > EPOCH_SECONDS_ABOVE) return { ms: n * MS_PER_SECOND - epochMs, form: 'epoch-seconds' };
    return { ms: n * MS_PER_SECOND, form: 'delay-seconds' };
  }
  const date = parseDate(value);
  return date === undefined ? undefined : { ms: date - epochMs, form: 'date' };
}

/**
 * An HTTP-date (IMF-fixdate, RFC 850, asctime), `Date#toString` or ISO 8601, as epoch ms; a
 * date without a zone is UTC (RFC 9110 says GMT; ISO's local time means nothing to a client).
 */
function parseDate(value: string): number | undefined {
  let text: string;
  if (ISO_DATE.test(value)) text = ISO_ZONE.test(value) ? value : `${value}Z`;
  else if (HTTP_STYLE_DATE.test(value)) text = HAS_ZONE.test(value) ? value : `${value} GMT`;
  else return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/** `RateLimit`: draft-07's dictionary or draft-08+'s list of named items. */
function readRateLimit(text: string | undefined, out: Collector): void {
  if (text === undefined) return;
  const dictionary = parseDictionary(text);
  if (dictionary.ok && Object.keys(DRAFT7_KEYS).some((key) => dictionary.value.has(key))) {
    readDraft7(text, dictionary.value, out);
    return;
  }
  const list = parseList(text);
  if (!list.ok) {
    out.bad('RateLimit', text, `neither draft-07 "limit=, remaining=, reset=" nor a draft-08 list: ${list.why}`);
    return;
  }
  readDraft8(text, list.value, out);
}

function readDraft7(text: string, members: Map<string, Member>, out: Collector): void {
  for (const [key, figure] of Object.entries(DRAFT7_KEYS)) {
    const member = members.get(key);
    if (member === undefined) continue;
    const field = `RateLimit ${key}`;
    const count = member.kind === 'item' ? wholeNumber(member.item) : undefined;
    if (count === undefined) {
      out.bad(field, text, `${key} is not a non-negative integer`);
      continue;
    }
    const reading: Reading = { figure, value: count, field, convention: 'ietf-draft7' };
    if (figure === 'reset') [reading.value, reading.form] = [count * MS_PER_SECOND, 'delay-seconds'];
    out.add(reading);
  }
}

/** One draft-08+ `RateLimit` item: its name and parameters. */
interface ServiceLimit {
  name: string;
  remaining: number | undefined;
  resetSeconds: number | undefined;
}

/**
 * Draft-08+ `RateLimit`. With several items (one per policy) the binding one speaks for the
 * response: the least remaining, and of those the longest wait.
 */
function readDraft8(text: string, members: Member[], out: Collector): void {
  const limits: ServiceLimit[] = [];
  for (const member of members) {
    const name = member.kind === 'item' ? itemName(member.item) : undefined;
    if (member.kind !== 'item' || name === undefined) {
      out.bad('RateLimit', text, 'an item that is not a policy name (a string or token)');
      continue;
    }
    const remaining = numberParam(member.params, 'r', 'RateLimit r', text, out);
    const resetSeconds = numberParam(member.params, 't', 'RateLimit t', text, out);
    limits.push({ name, remaining, resetSeconds });
  }
  const binding = bindingLimit(limits);
  if (!binding) return;
  const [convention, policy] = ['ietf-draft8', binding.name] as const;
  if (binding.remaining !== undefined) {
    out.add({ figure: 'remaining', value: binding.remaining, field: 'RateLimit r', convention, policy });
  }
  if (binding.resetSeconds !== undefined) {
    const value = binding.resetSeconds * MS_PER_SECOND;
    out.add({ figure: 'reset', value, field: 'RateLimit t', convention, policy, form: 'delay-seconds' });
  }
}

function bindingLimit(limits: ServiceLimit[]): ServiceLimit | undefined {
  let best: ServiceLimit | undefined;
  for (const limit of limits) {
    if (limit.remaining === undefined && limit.resetSeconds === undefined) continue;
    if (!best || tighter(limit, best)) best = limit;
  }
  return best;
}

function tighter(a: ServiceLimit, b: ServiceLimit): boolean {
  const [ra, rb] = [a.remaining ?? Infinity, b.remaining ?? Infinity];
  if (ra !== rb) return ra < rb;
  return (a.resetSeconds ?? -Infinity) > (b.resetSeconds ?? -Infinity);
}

/** `RateLimit-Policy`: draft-06/07 items are the quota (`100;w=60`), draft-08+ items are names with `q`. */
function readPolicy(text: string | undefined, out: Collector): void {
  if (text === undefined) return;
  const field = 'RateLimit-Policy';
  const list = parseList(text);
  if (!list.ok) {
    out.bad(field, text, `not a structured list: ${list.why}`);
    return;
  }
  for (const member of list.value) {
    if (member.kind !== 'item') {
      out.bad(field, text, 'an inner list where a policy was expected');
      continue;
    }
    const policy = readPolicyItem(member.item, member.params, text, out);
    if (policy) out.policies.push(policy);
  }
}

function readPolicyItem(item: BareItem, params: Parameters, text: string, out: Collector): AnnouncedPolicy | undefined {
  const field = 'RateLimit-Policy';
  const name = itemName(item);
  const quota = name === undefined ? wholeNumber(item) : numberParam(params, 'q', field, text, out);
  if (quota === undefined) {
    out.bad(
      field,
      text,
      name === undefined ? 'a policy that is neither a quota nor a name' : `policy "${name}" has no q`,
    );
    return undefined;
  }
  const policy: AnnouncedPolicy = { quota };
  if (name !== undefined) policy.name = name;
  const windowSeconds = numberParam(params, 'w', field, text, out);
  if (windowSeconds !== undefined) policy.windowMs = windowSeconds * MS_PER_SECOND;
  const burst =
    numberParam(params, 'ratelab-burst', field, text, out) ?? numberParam(params, 'burst', field, text, out);
  if (burst !== undefined) policy.burst = burst;
  return policy;
}

function itemName(item: BareItem): string | undefined {
  return item.kind === 'string' || item.kind === 'token' ? item.value : undefined;
}

function wholeNumber(item: BareItem): number | undefined {
  return item.kind === 'integer' && item.value >= 0 ? item.value : undefined;
}

/** A non-negative numeric parameter; anything else present is noted as malformed. */
function numberParam(params: Parameters, key: string, field: string, text: string, out: Collector): number | undefined {
  const item = params.get(key);
  if (item === undefined) return undefined;
  if ((item.kind === 'integer' || item.kind === 'decimal') && item.value >= 0) return item.value;
  out.bad(field, text, `${key} is not a non-negative number`);
  return undefined;
}
