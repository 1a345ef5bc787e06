// A real node:cluster application for test/shared/cluster-events.test.ts, started by
// test/support/ts-worker.mjs with RATELAB_TS_WORKER pointing here. The primary serves two
// fixed windows of 10 per hour, `api` and `trial`, counting its own decisions' outcomes, and
// forks one worker: `api` enforcing, `trial` in shadow (`enforce: false`), each asked 1,000
// times for its own key in the same order. The primary prints one JSON line: what the worker
// saw, its own counts, and how it refused `enforce`.
import cluster from 'node:cluster';
import type { RatelabError } from '../../src/core/errors.js';
import type { DecisionEvent, Outcome } from '../../src/core/decision-event.js';
import { serveClusterLimiter } from '../../src/shared/cluster-primary.js';
import { createClusterLimiter } from '../../src/shared/cluster-worker.js';

const POLICY = { limit: 10, windowMs: 3_600_000 };
const REQUESTS = 1000;

function countOutcomes(events: readonly DecisionEvent[]): Partial<Record<Outcome, number>> {
  const counts: Partial<Record<Outcome, number>> = {};
  for (const { outcome } of events) counts[outcome] = (counts[outcome] ?? 0) + 1;
  return counts;
}

async function primary(): Promise<void> {
  const seen: DecisionEvent[] = [];
  serveClusterLimiter('api', 'fixed-window', POLICY);
  serveClusterLimiter('trial', 'fixed-window', POLICY, { onDecision: (event) => void seen.push(event) });
  let refusal: unknown;
  try {
    serveClusterLimiter('shadow-primary', 'fixed-window', POLICY, { enforce: false } as never);
  } catch (error) {
    refusal = { code: (error as RatelabError).code, field: (error as RatelabError).field };
  }
  const result = await new Promise<unknown>((done) => {
    cluster.fork().on('message', (message: { result?: unknown }) => {
      if (message.result !== undefined) done(message.result);
    });
  });
  for (const worker of Object.values(cluster.workers ?? {})) worker?.kill();
  process.stdout.write(`${JSON.stringify({ worker: result, primary: countOutcomes(seen), refusal })}\n`);
}

async function worker(): Promise<void> {
  const events: DecisionEvent[] = [];
  const api = createClusterLimiter('fixed-window', POLICY, { name: 'api', timeoutMs: 30_000, failMode: 'closed' });
  const trial = createClusterLimiter('fixed-window', POLICY, {
    name: 'trial',
    timeoutMs: 30_000,
    failMode: 'closed',
    enforce: false,
    onDecision: (event) => void events.push(event),
  });
  const denied: number[] = [];
  const shadowDenied: number[] = [];
  let admittedInShadow = 0;
  for (let i = 0; i < REQUESTS; i++) {
    if (!(await api.consume('k')).allowed) denied.push(i);
    const decision = await trial.consume('k');
    if (decision.allowed) admittedInShadow += 1;
    if (decision.shadowDenied) shadowDenied.push(i);
  }
  process.send?.({
    result: {
      denied: denied.length,
      sameRequests: JSON.stringify(denied) === JSON.stringify(shadowDenied),
      admittedInShadow,
      outcomes: countOutcomes(events),
      limiters: [...new Set(events.map((e) => e.limiter))],
      limits: [...new Set(events.map((e) => e.limit))],
      durations: events.every((e) => typeof e.durationNs === 'number' && e.durationNs >= 0),
      reasons: [...new Set(events.map((e) => (e.decision as { reason?: string }).reason))],
    },
  });
}

await (cluster.isPrimary ? primary() : worker());
