import type { Drain } from './drain.js';
import type { Hypothesis } from './models.js';
import type { Return, Staircase } from './staircase.js';

/** A range of figures the evidence allows, ms or requests. */
export interface Bracket {
  low: number;
  high: number;
}

/** What the candidates are drawn from. */
export interface CandidateEvidence {
  /** The fresh client's sequential run until its first denial. */
  discovery: Drain;
  /** The same client polled afterwards. */
  staircase: Staircase;
  /** Windows the headers announce (RateLimit-Policy `w`, a reset time), ms. */
  hintedWindowsMs: readonly number[];
  /** Epoch ms minus audit ms (the two clocks the shots carry). */
  epochOffsetMs: number;
}

/** Windows a person configures, ms: round figures tried against every epoch boundary seen. */
const ROUND_WINDOWS_MS = [
  100, 200, 250, 500, 1000, 2000, 3000, 5000, 10_000, 15_000, 20_000, 30_000, 60_000, 120_000, 300_000, 600_000,
  900_000, 1_800_000, 3_600_000,
];

/** Points tried across a bracket besides its round figures. */
const GRID_POINTS = 24;

/** A return that brings back most of a quota at once: a window resetting. */
export function isJump(ret: Return, quota: number): boolean {
  return ret.count >= Math.max(2, 0.5 * quota);
}

/**
 * The hypotheses worth scoring, round figures first (ties go to the first): every window
 * family over the windows the returns allow, and the token bucket over the rates they
 * allow. The grids are small (a few thousand hypotheses), so scoring them all against the
 * probes' decisions is cheap.
 */
export function candidateHypotheses(evidence: CandidateEvidence): Hypothesis[] {
  const limits = candidateLimits(evidence);
  const windows = candidateWindows(evidence);
  const out: Hypothesis[] = [];
  for (const windowMs of windows) {
    for (const limit of limits) {
      out.push({ family: 'fixed-window', alignment: 'epoch', limit, windowMs });
      out.push({ family: 'fixed-window', alignment: 'first-request', limit, windowMs });
      out.push({ family: 'sliding-log', limit, windowMs, deniedCount: false });
      out.push({ family: 'sliding-counter', limit, windowMs });
      out.push({ family: 'sliding-log', limit, windowMs, deniedCount: true });
    }
  }
  for (const ratePerSec of candidateRates(evidence)) {
    for (const burst of candidateBursts(evidence, ratePerSec)) {
      out.push({ family: 'token-bucket', burst, ratePerSec, deniedCount: false });
      out.push({ family: 'token-bucket', burst, ratePerSec, deniedCount: true });
    }
  }
  return out;
}

/**
 * The limits: what the fresh client got, and every quota that came back at once (a window's
 * reset gives exactly its limit, where a discovery run across a reset got more), each give
 * or take one.
 */
function candidateLimits({ discovery, staircase }: CandidateEvidence): number[] {
  const resets = staircase.returns.filter((ret) => isJump(ret, discovery.admitted)).map((ret) => ret.count);
  const limits = new Set<number>();
  for (const base of [...resets, discovery.admitted]) {
    for (const value of [base, base - 1, base + 1]) if (value >= 1) limits.add(value);
  }
  return [...limits];
}

/** The windows the returns allow, from every reading of them, round figures first. */
function candidateWindows(evidence: CandidateEvidence): number[] {
  const brackets = windowBrackets(evidence);
  const windows: number[] = [];
  const add = (ms: number) => {
    const value = Math.round(ms);
    if (value >= 1 && !windows.includes(value)) windows.push(value);
  };
  for (const bracket of brackets) for (const ms of roundWithin(bracket)) add(ms);
  for (const ms of epochWindows(evidence)) add(ms);
  for (const ms of evidence.hintedWindowsMs) add(ms);
  // A limiter whose denials count distorts the staircase (each poll's denial spends): the
  // round windows are tried whatever the returns say.
  for (const ms of plausibleRoundWindows(evidence)) add(ms);
  for (const bracket of brackets) for (const ms of gridWithin(bracket)) add(ms);
  return windows;
}

/**
 * The windows each family's reading of the returns gives: between two resets; from the
 * first request to the first return (a window opened by the first request, a sliding log);
 * a quota over the rate it trickles back at (a sliding counter).
 */
function windowBrackets({ discovery, staircase }: CandidateEvidence): Bracket[] {
  const quota = discovery.admitted;
  const returns = staircase.returns;
  const brackets: Bracket[] = [];
  const jumps = returns.filter((ret) => isJump(ret, quota));
  for (let i = 1; i < jumps.length; i++) {
    const [a, b] = [jumps[i - 1] as Return, jumps[i] as Return];
    brackets.push({ low: b.afterMs - a.atMs, high: b.atMs - a.afterMs });
  }
  const first = returns[0];
  if (first) brackets.push({ low: first.afterMs - discovery.startMs, high: first.atMs - discovery.startMs });
  const trickle = returns.slice(1);
  const last = returns[returns.length - 1];
  if (first && last && trickle.length >= 3) {
    const units = trickle.reduce((sum, ret) => sum + ret.count, 0);
    const windowMs = (quota * (last.atMs - first.atMs)) / units;
    brackets.push({ low: windowMs * 0.85, high: windowMs * 1.15 });
  }
  return brackets.filter((bracket) => bracket.high > 0);
}

/** Round windows under which the first return fell on an epoch boundary, at least as long as the discovery run took. */
function epochWindows({ discovery, staircase, epochOffsetMs }: CandidateEvidence): number[] {
  const first = staircase.returns[0];
  if (!first) return [];
  const [from, to] = [first.afterMs + epochOffsetMs, first.atMs + epochOffsetMs];
  const shortest = staircase.exhaustedMs - discovery.startMs;
  return ROUND_WINDOWS_MS.filter((w) => w >= shortest && Math.floor(to / w) * w > from);
}

/** Every round window at least as long as the discovery run and no longer than the audit has watched. */
function plausibleRoundWindows({ discovery, staircase }: CandidateEvidence): number[] {
  const last = staircase.shots[staircase.shots.length - 1];
  const watchedMs = (last?.sentMs ?? staircase.exhaustedMs) - discovery.startMs;
  const shortest = staircase.exhaustedMs - discovery.startMs;
  return ROUND_WINDOWS_MS.filter((w) => w >= shortest && w <= 2 * watchedMs);
}

/** Round figures inside a bracket, the roundest first (at most a few per scale). */
function roundWithin({ low, high }: Bracket): number[] {
  const out: number[] = [];
  for (const step of [60_000, 10_000, 5000, 1000, 500, 100, 50, 10, 5]) {
    const first = Math.ceil(low / step) * step;
    for (let value = first, n = 0; value <= high && n < 4; value += step, n++) {
      if (value > 0 && !out.includes(value)) out.push(value);
    }
  }
  return out;
}

/** Evenly spaced points across a bracket, its middle first. */
function gridWithin({ low, high }: Bracket): number[] {
  const out = [(low + high) / 2];
  for (let i = 0; i <= GRID_POINTS; i++) out.push(low + ((high - low) * i) / GRID_POINTS);
  return out;
}

/** The rates the returns allow (units back over the time they took), round rates first. */
function candidateRates(evidence: CandidateEvidence): number[] {
  const { staircase } = evidence;
  const returns = staircase.returns;
  const last = returns[returns.length - 1];
  if (!last || last.atMs <= staircase.exhaustedMs) return [];
  const units = returns.reduce((sum, ret) => sum + ret.count, 0);
  const high = (1000 * units) / (last.afterMs - staircase.exhaustedMs || 1);
  const low = (1000 * Math.max(1, units - 1)) / (last.atMs - staircase.exhaustedMs);
  const bracket = { low: Math.min(low, high) * 0.9, high: Math.max(low, high) * 1.1 };
  const rates: number[] = [];
  const add = (rate: number) => {
    if (rate > 0 && !rates.includes(rate)) rates.push(rate);
  };
  for (const perSecond of roundWithin(scaled(bracket, 1))) add(perSecond);
  for (let perSecond = Math.ceil(bracket.low); perSecond <= bracket.high && rates.length < 40; perSecond++) {
    add(perSecond);
  }
  for (const perMinute of roundWithin(scaled(bracket, 60))) add(perMinute / 60);
  for (const rate of gridWithin(bracket)) add(rate);
  // As for the windows: a quota per round window, whatever a distorted staircase says.
  for (const windowMs of plausibleRoundWindows(evidence)) add((1000 * evidence.discovery.admitted) / windowMs);
  return rates;
}

function scaled({ low, high }: Bracket, factor: number): Bracket {
  return { low: low * factor, high: high * factor };
}

/** The bursts: what the fresh client got, less what the rate refilled while it ran, round figures first. */
function candidateBursts({ discovery, staircase }: CandidateEvidence, ratePerSec: number): number[] {
  const refilled = Math.ceil((ratePerSec * (staircase.exhaustedMs - discovery.startMs)) / 1000);
  const bracket = { low: Math.max(1, discovery.admitted - refilled - 1), high: discovery.admitted + 1 };
  const bursts = roundWithin(bracket);
  for (let burst = bracket.high; burst >= bracket.low; burst--) if (!bursts.includes(burst)) bursts.push(burst);
  return bursts;
}
