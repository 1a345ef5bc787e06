import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Clock } from '../core/clock.js';
import { loadLimiterModule } from '../metrics/external-limiter.js';
import { DEFAULT_LIMITER_TIMEOUT_MS } from '../metrics/limiter-timeout.js';
import { createLimiter } from '../memory/limiter.js';
import { siblingModule } from '../metrics/child-process.js';
import { MAX_LIMIT, type Algorithm, type LimitSpec, type Policy } from '../core/policy.js';
import createReferenceBucket from './reference.js';

/** The libraries ratelab is compared with, when installed (dev dependencies only). */
export const PEERS = {
  'rate-limiter-flexible': 'RateLimiterMemory; reads Date.now, a timer per key',
  limiter: 'RateLimiter per key in a Map; reads performance.now',
  'express-rate-limit': 'MemoryStore (fixed window, counts denied hits too); reads Date.now',
} as const;

export type PeerName = keyof typeof PEERS;

/**
 * The policy every peer runs under in the speed benchmark, whatever the workload's. Peers read
 * wall time, in which the bench makes millions of decisions per second: under a workload's
 * policy (sized for its virtual clock) they would deny part of the calls, and a denial is
 * other work (rate-limiter-flexible rejects a promise), so their figures would not compare.
 * 1e12 per hour is far above any call rate (2.8e8/s), so a peer admits every call, as
 * ratelab's subjects do on the workloads peers run (see `admitsEveryCall`).
 */
export const PEER_POLICY: Policy = { limit: 1e12, windowMs: 3_600_000 };

/** Something the benchmark measures, as plain data (it crosses into child processes). */
export type SubjectSpec =
  | { kind: 'reference' }
  | { kind: 'algorithm'; algorithm: Algorithm }
  /**
   * An algorithm asked through `consume(key, cost)` (the full Decision), under the workload's
   * policy alone (`limits: 1`) or with a looser long limit beside it (`limits: 2`, see
   * {@link twoLimits}): what a second limit costs a decision.
   */
  | { kind: 'limits'; algorithm: Algorithm; limits: 1 | 2 }
  /**
   * An algorithm asked through `consume(key, cost)` with a decision listener that does
   * nothing: what an event per decision costs, beside the `limits: 1` subject (no listener).
   */
  | { kind: 'listener'; algorithm: Algorithm }
  | { kind: 'peer'; peer: PeerName }
  /** `timeoutMs`: the bound of each call into the module (`--limiter-timeout`, default 5 s). */
  | { kind: 'module'; path: string; timeoutMs?: number };

/** One decision on `cost` units: a boolean, a `{ allowed }` object, or a promise of either. */
export type Decide = (key: string, cost: number) => unknown;

/** The name a subject has in reports and in the JSON figures. */
export function subjectName(subject: SubjectSpec): string {
  switch (subject.kind) {
    case 'reference':
      return 'reference';
    case 'algorithm':
      return subject.algorithm;
    case 'limits':
      return `${subject.algorithm}:${subject.limits === 1 ? '1-limit' : '2-limits'}`;
    case 'listener':
      return `${subject.algorithm}:listener`;
    case 'peer':
      return subject.peer;
    case 'module':
      return `module:${basename(subject.path)}`;
  }
}

/**
 * How long one call into the subject may take, for a user's module (loading, factory, each
 * async decision: see `settleWithin`); undefined for the rest, which are ratelab's own.
 */
export function callTimeoutOf(subject: SubjectSpec): number | undefined {
  return subject.kind === 'module' ? (subject.timeoutMs ?? DEFAULT_LIMITER_TIMEOUT_MS) : undefined;
}

/** Whether the subject reads time from the clock it is given (peers read wall time). */
export function followsVirtualClock(subject: SubjectSpec): boolean {
  return subject.kind !== 'peer';
}

/** The adapter module of a peer: it follows the `--limiter` contract. */
function peerModule(peer: PeerName): string {
  return siblingModule(import.meta.url, `peers/${peer}`);
}

/** The `--limiter` module a peer or module subject is loaded from. */
export function moduleOf(subject: Extract<SubjectSpec, { kind: 'peer' | 'module' }>): string {
  return subject.kind === 'peer' ? peerModule(subject.peer) : subject.path;
}

/** The file the memory probe loads to build the reference bucket. */
export function referenceModule(): string {
  return siblingModule(import.meta.url, 'reference');
}

/** How `peer` is configured in the speed benchmark, for the report (no third-party module loaded). */
export async function peerConfiguration(peer: PeerName): Promise<string> {
  const adapter = (await import(pathToFileURL(peerModule(peer)).href)) as { configuration(policy: Policy): string };
  return adapter.configuration(PEER_POLICY);
}

/** Whether the peer's package can be imported here. */
export async function peerInstalled(peer: PeerName): Promise<boolean> {
  return import(peer).then(
    () => true,
    () => false,
  );
}

/**
 * Builds a fresh instance of `subject` enforcing `policy` and reading `clock`, and returns
 * its decision function. Built-in algorithms are asked through `allow(key)` (through
 * `consume(key, cost).allowed` for a cost other than 1, which `allow` does not take), the
 * reference through its own boolean `consume`, modules and peers through `consume(key, cost)`.
 * Peers enforce {@link PEER_POLICY} instead of `policy`: they cannot read `clock`.
 */
export async function createDecide(subject: SubjectSpec, policy: Policy, clock: Clock): Promise<Decide> {
  switch (subject.kind) {
    case 'reference': {
      const bucket = createReferenceBucket(policy, { clock });
      return (key, cost) => bucket.consume(key, cost);
    }
    case 'algorithm': {
      const limiter = createLimiter(subject.algorithm, policy, { clock });
      return (key, cost) => (cost === 1 ? limiter.allow(key) : limiter.consume(key, cost).allowed);
    }
    case 'limits': {
      const limiter = createLimiter(subject.algorithm, subject.limits === 1 ? policy : twoLimits(policy), { clock });
      return (key, cost) => limiter.consume(key, cost).allowed;
    }
    case 'listener': {
      const limiter = createLimiter(subject.algorithm, policy, { clock, onDecision: ignoreEvent });
      return (key, cost) => limiter.consume(key, cost).allowed;
    }
    case 'peer':
    case 'module': {
      const limiter = await loadLimiterModule(
        moduleOf(subject),
        subject.kind === 'peer' ? PEER_POLICY : policy,
        clock,
        '/',
        callTimeoutOf(subject),
      );
      return (key, cost) => limiter.consume(key, cost);
    }
  }
}

/** The listener of the `listener` subject: it does nothing, so the figure is what the events themselves cost. */
function ignoreEvent(): void {}

/** The algorithm whose decisions under one limit and under two (and with a listener) are timed side by side (the default one). */
export const LIMITS_ALGORITHM: Algorithm = 'token-bucket';

/** How many windows of `policy` the long limit of {@link twoLimits} spans. */
const LONG_WINDOWS = 60;

/**
 * `policy` and a long limit beside it: {@link LONG_WINDOWS} windows holding that many times
 * the limit and one more window's worth, so it never denies what `policy` admits (a bucket's
 * burst or a fixed window's edge included) and the two decide the same requests; the
 * composite only does more work per decision.
 */
export function twoLimits(policy: Policy): LimitSpec[] {
  const long = Math.min(MAX_LIMIT, (LONG_WINDOWS + 1) * Math.max(policy.limit, policy.burst ?? 0));
  return [
    { ...policy, name: 'short' },
    { limit: long, windowMs: LONG_WINDOWS * policy.windowMs, name: 'long' },
  ];
}
