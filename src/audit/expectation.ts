import { formatDuration, parseDuration } from '../core/duration.js';
import { RatelabError, describeValue } from '../core/errors.js';
import { loadTiers } from '../tiers/load-tiers.js';
import type { Policy } from '../core/policy.js';
import {
  FAMILIES,
  type AuditExpectation,
  type AuditReport,
  type AuditScope,
  type Family,
  type Range,
} from './audit-report.js';

/** A family a claim can name: any but `unknown` (a claim says what it is). */
export type ClaimFamily = Exclude<Family, 'unknown'>;

/** The scope a claim names. */
export interface ClaimScope {
  kind: 'address' | 'header' | 'route' | 'global';
  /** The header naming the client, for `header`. */
  header?: string;
}

/**
 * What `--expect` (or a tier of `--expect-file`) claims the endpoint does. For the window
 * families `limit` per `windowMs` is the policy; for the bucket families it is the rate
 * (`limit` per `windowMs`) and `burst` the capacity, defaulting to `limit`. `none` claims
 * nothing is limited, and has no figures.
 */
export interface AuditClaim {
  /** The claim as people read it, canonical (`token-bucket 20/1s burst 40 per address`). */
  text: string;
  family: ClaimFamily;
  /** Requests per window; undefined for `none`. */
  limit?: number;
  /** The window, ms; undefined for `none`. */
  windowMs?: number;
  /** The bucket's capacity (bucket families only); undefined: `limit`. */
  burst?: number;
  /** Who shares one quota; undefined: not claimed. */
  scope?: ClaimScope;
}

/** The families whose policy is a rate and a capacity. */
const BUCKET_FAMILIES: readonly Family[] = ['token-bucket', 'leaky-bucket-queue'];

/** How far a measured figure may be from the claim and still match, as a fraction of the claim. */
export const EXPECT_TOLERANCE = { limit: 0.05, burst: 0.05, windowMs: 0.1, rate: 0.1 } as const;

const CLAIM_FAMILIES = FAMILIES.filter((family): family is ClaimFamily => family !== 'unknown');

/**
 * Parses a claim such as `token-bucket 20/1s burst 40 per header X-API-Key`: a family
 * (`gcra` is the token bucket's family), `<limit>/<window>` (the window as
 * `parseDuration` reads it, or a bare unit: `100/m`), then optionally `burst <n>` (bucket
 * families) and one scope: `per address`, `per header <Name>`, `per route` or `global`.
 * `none` stands alone. Throws `INVALID_ARGUMENT` naming `field` and what is wrong.
 */
export function parseExpectation(text: string, field: string): AuditClaim {
  const words = text
    .trim()
    .split(/\s+/)
    .filter((word) => word !== '');
  const bad = (why: string) =>
    new RatelabError('INVALID_ARGUMENT', `${field}: ${why} in ${describeValue(text)}`, { field });
  const family = claimFamily(words[0], bad);
  if (family === 'none') {
    if (words.length > 1) throw bad(`none takes nothing after it, got ${describeValue(words[1])}`);
    return claimOf({ family });
  }
  const { limit, windowMs } = rateOf(words[1], bad);
  const claim: Omit<AuditClaim, 'text'> = { family, limit, windowMs };
  let rest = words.slice(2);
  if (rest[0] === 'burst') {
    if (!BUCKET_FAMILIES.includes(family)) throw bad(`burst applies to ${BUCKET_FAMILIES.join(' and ')} only`);
    claim.burst = wholeNumber(rest[1], 'burst', bad);
    rest = rest.slice(2);
  }
  if (rest.length > 0) {
    const { scope, used } = scopeOf(rest, bad);
    claim.scope = scope;
    rest = rest.slice(used);
  }
  if (rest.length > 0) throw bad(`unexpected ${describeValue(rest.join(' '))}`);
  return claimOf(claim);
}

/**
 * The claim a tier of a tiers file makes (`--expect-file FILE --tier NAME`): its algorithm
 * (`gcra` as the token bucket), limit, window and burst; an `unlimited` tier claims `none`.
 * `label` names the file in messages. Throws the tiers file's own errors, or
 * `INVALID_ARGUMENT` naming `--tier` when the file has no such tier.
 */
export function tierExpectation(path: string, tier: string, label = path): AuditClaim {
  const config = loadTiers(path, label);
  const spec = config.tiers[tier];
  if (spec === undefined) {
    const names = Object.keys(config.tiers).join(', ');
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `--tier: ${label} has no tier ${describeValue(tier)} (it has ${names})`,
      {
        field: '--tier',
      },
    );
  }
  if (spec === 'unlimited') return claimOf({ family: 'none' });
  if (Array.isArray(spec.policy)) {
    // The audit infers one policy; a claim of several limits at once has no measure to meet.
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `--tier: tier ${describeValue(tier)} of ${label} lists ${spec.policy.length} limits; an audit judges a tier of one limit (pass --expect for the one to check)`,
      { field: '--tier' },
    );
  }
  const family: ClaimFamily = spec.algorithm === 'gcra' ? 'token-bucket' : spec.algorithm;
  const { limit, windowMs, burst } = spec.policy as Policy;
  return claimOf(
    burst === undefined || !BUCKET_FAMILIES.includes(family)
      ? { family, limit, windowMs }
      : { family, limit, windowMs, burst },
  );
}

/**
 * Judges the claim against what the audit measured: one line per contradicted part
 * (`family: ...`, `limit: ...`, `window: ...`, `rate: ...`, `burst: ...`, `scope: ...`).
 * A figure matches within {@link EXPECT_TOLERANCE} of the claim, or when its measured range
 * includes the claim. A measured `unknown` or `none` contradicts any claim but `none`.
 */
export function judgeExpectation(report: AuditReport, claim: AuditClaim): AuditExpectation {
  const mismatches = [
    ...familyMismatches(report, claim),
    ...figureMismatches(report, claim),
    ...scopeMismatches(report, claim),
  ];
  return { claim: claim.text, passed: mismatches.length === 0, mismatches };
}

function familyMismatches(report: AuditReport, claim: AuditClaim): string[] {
  const measured = report.algorithm.family;
  return measured === claim.family ? [] : [`family: expected ${claim.family}, measured ${measured}`];
}

function figureMismatches(report: AuditReport, claim: AuditClaim): string[] {
  if (claim.limit === undefined || claim.windowMs === undefined) return [];
  const family = report.algorithm.family;
  // With nothing limited or nothing decided the family line says it all: no figure was measured.
  if (family === 'none' || family === 'unknown') return [];
  return BUCKET_FAMILIES.includes(claim.family)
    ? bucketMismatches(report, claim.limit, claim.windowMs, claimedBurst(claim))
    : windowMismatches(report, claim.limit, claim.windowMs);
}

function windowMismatches(report: AuditReport, limit: number, windowMs: number): string[] {
  const { policy } = report;
  const mismatches: string[] = [];
  if (!matches(policy.limit, policy.range.limit, limit, EXPECT_TOLERANCE.limit))
    mismatches.push(
      `limit: expected ${limit} per ${formatDuration(windowMs)}, ${measuredText(policy.limit, policy.range.limit, figure)}`,
    );
  if (!matches(policy.windowMs, policy.range.windowMs, windowMs, EXPECT_TOLERANCE.windowMs))
    mismatches.push(
      `window: expected ${formatDuration(windowMs)}, ${measuredText(policy.windowMs, policy.range.windowMs, duration)}`,
    );
  return mismatches;
}

/**
 * The capacity to compare: the claim's, else (ratelab's convention) the token bucket's
 * limit; a queue's capacity only when claimed, since a queueing limiter's is seldom measured.
 */
function claimedBurst(claim: AuditClaim): number | undefined {
  if (claim.burst !== undefined) return claim.burst;
  return claim.family === 'token-bucket' ? claim.limit : undefined;
}

/** The rate is compared per second and told per the claim's window (`20 per 1s`). */
function bucketMismatches(report: AuditReport, limit: number, windowMs: number, burst: number | undefined): string[] {
  const { policy } = report;
  const mismatches: string[] = [];
  const claimedRate = (limit * 1000) / windowMs;
  const rate = measuredRate(report);
  if (!matches(rate.value, rate.range, claimedRate, EXPECT_TOLERANCE.rate)) {
    const perWindow = (perSec: number) => figure((perSec * windowMs) / 1000);
    const per = ` per ${formatDuration(windowMs)}`;
    mismatches.push(`rate: expected ${limit}${per}, ${measuredText(rate.value, rate.range, perWindow, per)}`);
  }
  const measuredBurst = policy.burst ?? null;
  if (burst !== undefined && !matches(measuredBurst, policy.range.burst, burst, EXPECT_TOLERANCE.burst))
    mismatches.push(`burst: expected ${burst}, ${measuredText(measuredBurst, policy.range.burst, figure)}`);
  return mismatches;
}

/** The measured rate per second: the bucket's, else the window's limit over its length. */
function measuredRate(report: AuditReport): { value: number | null; range: Range | undefined } {
  const { policy } = report;
  if (policy.ratePerSec !== undefined) return { value: policy.ratePerSec, range: policy.range.ratePerSec };
  if (policy.limit === null || policy.windowMs === null) return { value: null, range: undefined };
  return { value: (policy.limit * 1000) / policy.windowMs, range: undefined };
}

function scopeMismatches(report: AuditReport, claim: AuditClaim): string[] {
  if (claim.scope === undefined) return [];
  const measured = report.scope;
  const same =
    measured.kind === claim.scope.kind &&
    (claim.scope.kind !== 'header' || measured.header?.toLowerCase() === claim.scope.header?.toLowerCase());
  return same ? [] : [`scope: expected ${scopeText(claim.scope)}, measured ${scopeText(measured)}`];
}

/** A scope as people say it: `per address`, `per header X-API-Key`, `per route`, `global`, `unknown`. */
export function scopeText(scope: Pick<AuditScope, 'kind' | 'header'>): string {
  if (scope.kind === 'global' || scope.kind === 'unknown') return scope.kind;
  if (scope.kind === 'header') return `per header ${scope.header ?? '(unnamed)'}`;
  return `per ${scope.kind}`;
}

/** Whether `measured` is within `tolerance` of `claimed` (a fraction of it), or its range includes it. */
function matches(measured: number | null, range: Range | undefined, claimed: number, tolerance: number): boolean {
  if (measured === null) return false;
  if (range !== undefined && range[0] <= claimed && claimed <= range[1]) return true;
  return Math.abs(measured - claimed) <= tolerance * claimed;
}

/** `measured 50 (45-55)`, the unit after the value (` per 1s`), or `not measured`. */
function measuredText(value: number | null, range: Range | undefined, show: (n: number) => string, unit = ''): string {
  if (value === null) return 'not measured';
  const spread = range === undefined ? '' : ` (${show(range[0])}-${show(range[1])})`;
  return `measured ${show(value)}${unit}${spread}`;
}

/** A figure to 4 significant digits, without trailing zeros. */
function figure(n: number): string {
  return String(Number(n.toPrecision(4)));
}

function duration(ms: number): string {
  return formatDuration(Math.round(ms));
}

function claimFamily(word: string | undefined, bad: (why: string) => RatelabError): ClaimFamily {
  const name = word?.toLowerCase();
  if (name === 'gcra') return 'token-bucket';
  const family = CLAIM_FAMILIES.find((candidate) => candidate === name);
  if (family === undefined)
    throw bad(`expected a family (${CLAIM_FAMILIES.join(', ')}, or gcra), got ${describeValue(word ?? '')}`);
  return family;
}

function rateOf(word: string | undefined, bad: (why: string) => RatelabError): { limit: number; windowMs: number } {
  const match = /^([^/]*)\/(.*)$/.exec(word ?? '');
  if (match === null) throw bad(`expected <limit>/<window> after the family (20/1s), got ${describeValue(word ?? '')}`);
  const limit = wholeNumber(match[1], 'the limit', bad);
  const window = match[2] as string;
  try {
    // A bare unit is one of it: 100/m is 100 per minute.
    return { limit, windowMs: parseDuration(/^[a-z]/i.test(window) ? `1${window}` : window, 'window') };
  } catch {
    throw bad(`expected a window such as 500ms, 1s or 1m after the /, got ${describeValue(window)}`);
  }
}

function wholeNumber(word: string | undefined, what: string, bad: (why: string) => RatelabError): number {
  const n = /^\d+$/.test(word ?? '') ? Number(word) : NaN;
  if (!Number.isSafeInteger(n) || n < 1)
    throw bad(`${what}: expected a whole number >= 1, got ${describeValue(word ?? '')}`);
  return n;
}

function scopeOf(words: string[], bad: (why: string) => RatelabError): { scope: ClaimScope; used: number } {
  const [first, second, third] = words;
  if (first === 'global') return { scope: { kind: 'global' }, used: 1 };
  if (first === 'per' && (second === 'address' || second === 'route')) return { scope: { kind: second }, used: 2 };
  if (first === 'per' && second === 'header') {
    if (third === undefined || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(third))
      throw bad(`per header: expected a header name, got ${describeValue(third ?? '')}`);
    return { scope: { kind: 'header', header: third }, used: 3 };
  }
  throw bad(
    `expected burst <n>, per address, per header <Name>, per route or global, got ${describeValue(words.join(' '))}`,
  );
}

/** The claim with its canonical text. */
function claimOf(claim: Omit<AuditClaim, 'text'>): AuditClaim {
  const parts: string[] = [claim.family];
  if (claim.limit !== undefined && claim.windowMs !== undefined)
    parts.push(`${claim.limit}/${formatDuration(claim.windowMs)}`);
  if (claim.burst !== undefined) parts.push(`burst ${claim.burst}`);
  if (claim.scope !== undefined) parts.push(scopeText(claim.scope));
  return { text: parts.join(' '), ...claim };
}
