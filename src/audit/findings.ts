import type { AuditReport, Confidence, Finding } from './audit-report.js';
import type { Readings } from './readings.js';

/** The rows of the findings table, each conclusion with its evidence. */
export function findingsOf(report: AuditReport, readings: Readings): Finding[] {
  const rows: Finding[] = [
    {
      topic: 'algorithm',
      conclusion: familyText(report),
      evidence: report.algorithm.evidence.join('; '),
      confidence: report.algorithm.confidence,
    },
  ];
  const policy = policyText(report);
  if (policy) rows.push({ topic: 'policy', ...policy, confidence: report.algorithm.confidence });
  rows.push({
    topic: 'scope',
    conclusion: scopeText(report),
    evidence: report.scope.evidence.join('; '),
    confidence: report.scope.kind === 'unknown' ? 'low' : 'high',
  });
  if (report.alignment !== 'unknown') rows.push(alignmentRow(report));
  rows.push(denialRow(report));
  if (readings.deniedCount) {
    const d = readings.deniedCount;
    rows.push({
      topic: 'denied requests',
      conclusion: d.deniedCount ? 'spend quota: a client that keeps knocking stays locked out' : 'do not spend quota',
      evidence: `after ${d.knocks} denied knocks a client got ${d.knocked} back where one that waited got ${d.waited}`,
      confidence: Math.abs(d.waited - d.knocked) >= d.knocks / 2 || !d.deniedCount ? 'high' : 'medium',
    });
  } else if (readings.lockedOut) {
    rows.push({
      topic: 'denied requests',
      conclusion: 'spend quota: a client that keeps knocking stays locked out',
      evidence:
        'the client polled every few ms got nothing back, while a client asked with each wait twice the last was let back in',
      confidence: 'medium',
    });
  }
  if (report.concurrency) rows.push(concurrencyRow(report));
  if (report.edge) rows.push(edgeRow(report));
  if (report.soak) rows.push(soakRow(report));
  return rows;
}

function familyText(report: AuditReport): string {
  switch (report.algorithm.family) {
    case 'token-bucket':
      return 'token bucket (or GCRA: they decide alike)';
    case 'leaky-bucket-queue':
      return 'leaky bucket that queues: requests are delayed, then denied';
    case 'none':
      return 'no limit found';
    case 'unknown':
      return 'unknown: the evidence does not decide';
    default:
      return report.algorithm.family.replace('-', ' ');
  }
}

function policyText(report: AuditReport): { conclusion: string; evidence: string } | undefined {
  const { limit, windowMs, burst, ratePerSec, range } = report.policy;
  if (ratePerSec !== undefined && burst !== undefined) {
    return {
      conclusion: `${ratePerSec}/s, burst ${burst} (${limit} per ${seconds(windowMs ?? 1000)})`,
      evidence: `rate ${rangeText(range.ratePerSec, '/s')}, burst ${rangeText(range.burst, '')}`,
    };
  }
  if (limit === null || windowMs === null) return undefined;
  return {
    conclusion: `${limit} per ${seconds(windowMs)}`,
    evidence: `limit ${rangeText(range.limit, '')}, window ${rangeText(range.windowMs, ' ms')}`,
  };
}

function rangeText(range: readonly [number, number] | undefined, unit: string): string {
  if (!range) return 'not measured';
  const [low, high] = range;
  return low === high ? `exactly ${low}${unit}` : `${low}-${high}${unit}`;
}

/** A duration in seconds as people write it: `1s`, `1.5s`, `250ms`. */
export function seconds(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${Number((ms / 1000).toPrecision(4))}s`;
}

function scopeText(report: AuditReport): string {
  const { kind, header, routes } = report.scope;
  const who = {
    address: 'per client address',
    header: `per ${header ?? 'key header'}`,
    route: 'per route (shared by every client)',
    global: 'global: one quota for every client',
    unknown: 'unknown',
  }[kind];
  if (routes === undefined || kind === 'route') return who;
  return `${who}; ${routes === 'shared' ? 'the paths share one budget' : 'each path has its own budget'}`;
}

/** What each alignment means, and what shows it. */
const ALIGNMENTS: Record<AuditReport['alignment'], { conclusion: string; evidence: string }> = {
  epoch: {
    conclusion: 'windows start at epoch multiples of the window',
    evidence: 'the resets fell on multiples of the window on the clock, whatever each client’s first request',
  },
  'first-request': {
    conclusion: "windows start at each client's first request",
    evidence: 'each client’s reset came one window after its own first request',
  },
  continuous: {
    conclusion: 'no windows: quota returns continuously',
    evidence: 'no resets: each unit came back on its own (a bucket’s refill, a log’s window after each request)',
  },
  unknown: { conclusion: 'unknown', evidence: 'no reset was seen' },
};

function alignmentRow(report: AuditReport): Finding {
  return { topic: 'alignment', ...ALIGNMENTS[report.alignment], confidence: report.algorithm.confidence };
}

function denialRow(report: AuditReport): Finding {
  const { status, retryAfter, headers, maxDelayMs, body } = report.denial;
  if (status === null) {
    return { topic: 'denial', conclusion: 'none seen', evidence: `${report.requests} requests`, confidence: 'medium' };
  }
  const parts = [`status ${status}`, retryAfter ? 'with Retry-After' : 'no Retry-After'];
  if (maxDelayMs !== undefined) parts.push(`held up to ${maxDelayMs} ms before`);
  return {
    topic: 'denial',
    conclusion: parts.join(', '),
    evidence: `fields: ${headers.length === 0 ? 'none' : headers.join(', ')}${body ? `; body: ${oneLine(body)}` : ''}`,
    confidence: 'high',
  };
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 60 ? `${flat.slice(0, 57)}...` : flat;
}

function concurrencyRow(report: AuditReport): Finding {
  const c = report.concurrency as NonNullable<AuditReport['concurrency']>;
  const confidence: Confidence = c.expected === null ? 'low' : 'high';
  const conclusion =
    c.expected === null
      ? `${c.admitted} of ${c.inFlight} admitted`
      : c.overAdmitted > 0
        ? `${c.overAdmitted} over-admitted with ${c.inFlight} in flight`
        : `holds with ${c.inFlight} in flight`;
  return {
    topic: 'concurrency',
    conclusion,
    evidence: `${c.inFlight} at once from a fresh client: ${c.admitted} admitted, the policy admits ${c.expected ?? '?'}`,
    confidence,
  };
}

function edgeRow(report: AuditReport): Finding {
  const e = report.edge as NonNullable<AuditReport['edge']>;
  return {
    topic: 'window edge',
    conclusion: `${e.worstWindowRatio.toFixed(2)}x the limit in one window`,
    evidence: `${e.before} admitted just before a window's end, ${e.after} just after, within ${Math.round(e.spanMs)} ms`,
    confidence: 'high',
  };
}

function soakRow(report: AuditReport): Finding {
  const s = report.soak as NonNullable<AuditReport['soak']>;
  return {
    topic: 'soak',
    conclusion: `${s.falseAdmits} false admits, ${s.falseDenials} false denials against the exact oracle`,
    evidence: `${s.requests} requests over ${seconds(s.durationMs)}: ${s.admitted} admitted, the oracle admits ${s.oracleAdmitted}; worst window ${s.worstWindowRatio.toFixed(2)}x`,
    confidence: 'high',
  };
}
