import { drain, type Drain } from './drain.js';
import type { Identity } from './identities.js';
import type { Hypothesis } from './models.js';
import type { ProbeClient, ProbeShot } from './probe-client.js';

/** Whether denied requests spent quota: a client that kept knocking got less back than one that waited. */
export interface DeniedCountReading {
  deniedCount: boolean;
  knocks: number;
  /** What the client that knocked got back at the check, and what the one that waited got. */
  knocked: number;
  waited: number;
  shots: ProbeShot[];
}

/** Options of {@link probeDeniedCount}. */
export interface DeniedCountOptions {
  knocker: Identity;
  waiter: Identity;
  hypothesis: Hypothesis;
  epochOffsetMs: number;
}

/** Margin past a moment the policy predicts, ms: the endpoint's clock and ours differ by a request's flight. */
const MARGIN_MS = 15;

/**
 * Two fresh clients are exhausted together; one knocks (sends requests it knows will be
 * denied), the other waits; then both ask at a moment the inferred policy gives quota
 * back. If the knocks were counted, the knocker gets clearly less: its denials sit in a
 * log, drive a bucket below zero or swell a counter. Both clients are fresh, so nothing
 * else of the audit is distorted by the knocking.
 */
export async function probeDeniedCount(client: ProbeClient, options: DeniedCountOptions): Promise<DeniedCountReading> {
  const { knocker, waiter, hypothesis } = options;
  const quota = hypothesis.family === 'token-bucket' ? hypothesis.burst : hypothesis.limit;
  const knocks = Math.min(10, Math.max(2, Math.round(quota / 2)));
  const cap = 2 * quota + knocks;
  const first = await drain(client, 'denied-count', knocker, { cap });
  const second = await drain(client, 'denied-count', waiter, { cap });
  const shots = [...first.shots, ...second.shots];
  const knockAt = knockMoment(hypothesis, second);
  await client.sleepUntil(knockAt);
  for (let i = 0; i < knocks; i++) shots.push(await client.send('denied-count', knocker));
  await client.sleepUntil(checkMoment(hypothesis, second, knocks, options.epochOffsetMs, knockAt));
  // Both at once, so that neither gets what trickles back while the other asks.
  const [knocked, waited] = await Promise.all([
    drain(client, 'denied-count', knocker, { cap }),
    drain(client, 'denied-count', waiter, { cap }),
  ]);
  shots.push(...knocked.shots, ...waited.shots);
  return {
    deniedCount: knocked.admitted < waited.admitted - Math.max(1, knocks / 3),
    knocks,
    knocked: knocked.admitted,
    waited: waited.admitted,
    shots,
  };
}

/**
 * Knocks go at once for a bucket or a counter (later, a counter's next window may already
 * admit some, and an admitted knock spends quota whatever the limiter does with denials),
 * a third into the window for a log or a window opened by the first request (so that a
 * log still holds them at the check).
 */
function knockMoment(h: Hypothesis, last: Drain): number {
  const exhaustedMs = last.stoppedAt?.sentMs ?? last.startMs;
  const atOnce = h.family === 'token-bucket' || h.family === 'sliding-counter';
  return atOnce ? exhaustedMs : exhaustedMs + h.windowMs / 3;
}

/** When the waiting client has quota back and a knocker whose knocks counted clearly less. */
function checkMoment(h: Hypothesis, last: Drain, knocks: number, epochOffsetMs: number, knockAt: number): number {
  const exhaustedMs = last.stoppedAt?.sentMs ?? last.startMs;
  switch (h.family) {
    case 'token-bucket':
      return exhaustedMs + (1000 * (knocks + 2)) / h.ratePerSec;
    case 'sliding-log':
      return exhaustedMs + h.windowMs + MARGIN_MS;
    case 'fixed-window':
      if (h.alignment === 'first-request') return last.startMs + h.windowMs + MARGIN_MS;
      return nextBoundary(knockAt, h.windowMs, epochOffsetMs) + MARGIN_MS;
    case 'sliding-counter':
      return nextBoundary(knockAt, h.windowMs, epochOffsetMs) + h.windowMs / 2;
  }
}

function nextBoundary(afterMs: number, windowMs: number, epochOffsetMs: number): number {
  return Math.ceil((afterMs + epochOffsetMs) / windowMs) * windowMs - epochOffsetMs;
}
