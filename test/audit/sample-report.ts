// A hand-made AuditReport: what an audit of `ratelab serve --algorithm token-bucket --limit 20
// --window 1s --burst 40` keyed by X-API-Key reports. The renderers' and the CLI's tests read
// it; its figures are those such an audit measures (a rate within a few percent, the burst
// exact, a truncated Retry-After caught).
import type { AuditReport, ProbeTimeline, ShotOutcome } from '../../src/audit/audit-report.js';

/** Shots `stepMs` apart from `fromMs`, with the outcomes given in runs (`[40, 'admitted'], [1, 'denied']`). */
function shots(fromMs: number, stepMs: number, runs: [number, ShotOutcome][]): ProbeTimeline['shots'] {
  const out: ProbeTimeline['shots'] = [];
  for (const [count, outcome] of runs)
    for (let i = 0; i < count; i += 1) {
      const status = outcome === 'denied' ? 429 : outcome === 'error' ? null : 200;
      out.push({ sentMs: fromMs + out.length * stepMs, latencyMs: 1.2 + (out.length % 5) * 0.3, outcome, status });
    }
  return out;
}

const discovery = shots(12, 2, [
  [40, 'admitted'],
  [1, 'denied'],
]);
const recovery = shots(120, 50, [
  [1, 'denied'],
  [1, 'admitted'],
  [1, 'denied'],
  [1, 'admitted'],
  [1, 'admitted'],
  [1, 'denied'],
  [1, 'admitted'],
  [1, 'error'],
  [1, 'admitted'],
]);
const concurrency = shots(1600, 0.1, [
  [43, 'admitted'],
  [21, 'denied'],
]);

/** The sample audit: token bucket 20 per 1s, burst 40, per X-API-Key; 3 over-admitted with 64 in flight. */
export const SAMPLE_REPORT: AuditReport = {
  format: 1,
  target: 'http://127.0.0.1:8080/',
  paths: ['/'],
  algorithm: {
    family: 'token-bucket',
    confidence: 'high',
    evidence: [
      'quota returned as a ramp from the first poll: 1 every 50 ms (20/s)',
      'token-bucket model reproduces 118 of 120 decisions; sliding-log 71, fixed-window 64',
    ],
  },
  policy: {
    limit: 20,
    windowMs: 1000,
    burst: 40,
    ratePerSec: 20.4,
    range: { limit: [19, 21], windowMs: [950, 1050], burst: [40, 40], ratePerSec: [19.6, 21.1] },
  },
  deniedCount: false,
  alignment: 'continuous',
  scope: {
    kind: 'header',
    header: 'X-API-Key',
    evidence: ['a fresh X-API-Key value got a full burst of 40', 'a fresh source address with the same key got none'],
  },
  denial: {
    status: 429,
    retryAfter: true,
    body: '{"error":"rate limited","retryAfterMs":50}',
    headers: ['retry-after', 'ratelimit', 'ratelimit-policy'],
  },
  headers: [
    { name: 'Retry-After', verdict: 'truthful', detail: 'whole seconds rounded up; a request sent at it was admitted' },
    { name: 'RateLimit-Policy', verdict: 'truthful', detail: '40;w=2 matches the measured burst' },
    {
      name: 'RateLimit',
      verdict: 'wrong',
      detail: 'remaining=0 announced, the next request 60 ms later was admitted',
    },
    { name: 'X-RateLimit-Reset', verdict: 'missing', detail: 'not sent' },
  ],
  concurrency: { inFlight: 64, admitted: 43, expected: 40, overAdmitted: 3 },
  weaker: ['alignment: a bucket has no windows, so none was probed'],
  findings: [
    {
      topic: 'algorithm',
      conclusion: 'token bucket (GCRA makes the same decisions)',
      evidence: 'quota returned as a ramp of 1 per 50 ms; the model reproduces 118 of 120 decisions',
      confidence: 'high',
    },
    {
      topic: 'rate',
      conclusion: '20.4 per s (19.6-21.1)',
      evidence: '9 recovery polls over 450 ms',
      confidence: 'high',
    },
    { topic: 'burst', conclusion: '40', evidence: '40 admitted back to back, the 41st denied', confidence: 'high' },
    {
      topic: 'scope',
      conclusion: 'per X-API-Key',
      evidence: 'a fresh key got a full burst; a fresh address with the same key got none',
      confidence: 'high',
    },
    {
      topic: 'denied requests',
      conclusion: 'do not spend quota',
      evidence: '20 denied knocks did not delay the recovery ramp',
      confidence: 'medium',
    },
    {
      topic: 'concurrency',
      conclusion: '3 over-admitted with 64 in flight',
      evidence: '43 admitted of 64 sent at once against a fresh quota of 40',
      confidence: 'high',
    },
  ],
  timelines: [
    {
      probe: 'discovery',
      purpose: 'sequential requests from a fresh identity until the first denial',
      shots: discovery,
      oracle: discovery.map((_, i) => i < 40),
    },
    {
      probe: 'recovery',
      purpose: 'poll the exhausted identity: how the quota comes back',
      shots: recovery,
      oracle: recovery.map((shot) => shot.outcome === 'admitted'),
    },
    { probe: 'concurrency', purpose: '64 requests in flight at once against a fresh quota', shots: concurrency },
  ],
  requests: 612,
  durationMs: 8420,
  stoppedBy: 'done',
};
