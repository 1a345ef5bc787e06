/**
 * What `ratelab audit` learned about a live endpoint's limiter: the `--json` document
 * (format 1) and what the terminal and HTML reports render. Every time is wall-clock
 * milliseconds; `sentMs` fields count from the audit's start.
 */

/** The algorithm families audit tells apart from outside. */
export const FAMILIES = [
  'fixed-window',
  'sliding-log',
  'sliding-counter',
  /** Token bucket and GCRA: they make the same decisions, so one family. */
  'token-bucket',
  /** Delays requests rather than denying them (nginx `limit_req` without `nodelay`). */
  'leaky-bucket-queue',
  /** Nothing was limited within the audit's bounds. */
  'none',
  /** The evidence did not decide. */
  'unknown',
] as const;

/** An algorithm family (see {@link FAMILIES}). */
export type Family = (typeof FAMILIES)[number];

/** How sure a conclusion is: `high` when measured with a margin, `low` when inferred from little. */
export type Confidence = 'high' | 'medium' | 'low';

/** A measured figure's uncertainty: the smallest and largest values the evidence allows. */
export type Range = readonly [low: number, high: number];

/** The inferred policy; a figure the audit could not measure is null. */
export interface AuditPolicy {
  /** Requests per window (for the bucket families: `ratePerSec` over `windowMs`). */
  limit: number | null;
  /** The window, ms (for the bucket families: the window `limit` is counted over). */
  windowMs: number | null;
  /** The bucket's capacity: the most admitted at once from a full bucket. */
  burst?: number;
  /** The bucket's sustained rate, requests per second. */
  ratePerSec?: number;
  /** Each measured figure's range. */
  range: { limit?: Range; windowMs?: Range; burst?: Range; ratePerSec?: Range };
}

/** Where a window starts: at epoch multiples, at each key's first request, or no windows. */
export type Alignment = 'epoch' | 'first-request' | 'continuous' | 'unknown';

/** Who shares one quota. */
export interface AuditScope {
  kind: 'address' | 'header' | 'route' | 'global' | 'unknown';
  /** The header that names the client, for `header`. */
  header?: string;
  /** With two or more `--path`: whether they share one budget or have one each. */
  routes?: 'shared' | 'separate';
  evidence: string[];
}

/** What a denial looks like. */
export interface AuditDenial {
  /** The status of a denied request (429, 503, ...); null when none was denied. */
  status: number | null;
  /** Whether denials carry `Retry-After`. */
  retryAfter: boolean;
  /** The start of a denial's body (at most 200 characters). */
  body?: string;
  /** The rate-limit header fields a denial carries (lower case). */
  headers: string[];
  /** Limiters that queue requests: the most any admitted request was held, ms. */
  maxDelayMs?: number;
}

/** One header's verdict: does what it announces hold? */
export interface HeaderVerdict {
  /** The field as sent, e.g. `Retry-After`, `X-RateLimit-Remaining`, `RateLimit-Policy`. */
  name: string;
  verdict: 'truthful' | 'wrong' | 'missing';
  /** Why: what it announced against what happened ("off by 1", "ms, not s", ...). */
  detail: string;
}

/** Over-admission with many requests in flight at once against a fresh quota. */
export interface AuditConcurrency {
  inFlight: number;
  admitted: number;
  /** What the inferred policy admits at once; null when no limit was found. */
  expected: number | null;
  /** `admitted - expected` when positive, else 0. */
  overAdmitted: number;
}

/** The window edge: a burst just before a window's end and one just after. */
export interface AuditEdge {
  /** Most admitted in any span of one window, over the limit (2 for a fixed window's worst). */
  worstWindowRatio: number;
  before: number;
  after: number;
  /** The span both bursts fit in, ms. */
  spanMs: number;
}

/** A `--soak` run judged against the exact oracle of the inferred policy. */
export interface AuditSoak {
  durationMs: number;
  requests: number;
  admitted: number;
  /** What the oracle (a sliding log of the inferred policy) admits of the same requests. */
  oracleAdmitted: number;
  falseAdmits: number;
  falseDenials: number;
  worstWindowRatio: number;
}

/** One row of the findings table. */
export interface Finding {
  topic: string;
  conclusion: string;
  evidence: string;
  confidence: Confidence;
}

/** How one request went, for the timelines. */
export type ShotOutcome = 'admitted' | 'delayed' | 'denied' | 'error';

/** One probe's requests, for the HTML timelines. */
export interface ProbeTimeline {
  /** The probe's name: `discovery`, `recovery`, `concurrency`, `edge`, ... */
  probe: string;
  /** What the probe asked. */
  purpose: string;
  shots: { sentMs: number; latencyMs: number; outcome: ShotOutcome; status: number | null }[];
  /**
   * What the inferred policy's exact oracle admits of the same requests (same order), when
   * a policy was inferred.
   */
  oracle?: boolean[];
}

/** Why the audit ended. */
export type AuditStop = 'done' | 'max-requests' | 'max-time' | 'interrupted';

/** The result of `--expect`: the claim, and each part the audit contradicted. */
export interface AuditExpectation {
  claim: string;
  passed: boolean;
  mismatches: string[];
}

/** Everything one audit learned (`ratelab audit --json`, format 1). */
export interface AuditReport {
  format: 1;
  /** The URL audited. */
  target: string;
  /** The paths audited (the URL's own, then each `--path`). */
  paths: string[];
  algorithm: { family: Family; confidence: Confidence; evidence: string[] };
  policy: AuditPolicy;
  /** Whether denied requests spend quota; absent when the probes could not tell. */
  deniedCount?: boolean;
  alignment: Alignment;
  scope: AuditScope;
  denial: AuditDenial;
  headers: HeaderVerdict[];
  /** Null when the audit stopped before the probe. */
  concurrency: AuditConcurrency | null;
  /** For the window families, when probed. */
  edge?: AuditEdge;
  /** With `--soak`. */
  soak?: AuditSoak;
  /** The conclusions the audit's bounds made weaker (a window longer than the time allowed, ...). */
  weaker: string[];
  findings: Finding[];
  timelines: ProbeTimeline[];
  /** Requests sent in all. */
  requests: number;
  durationMs: number;
  stoppedBy: AuditStop;
  expect?: AuditExpectation;
}
