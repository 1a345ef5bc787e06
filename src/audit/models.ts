/**
 * Exact models of the families audit tells apart, each replaying a client's requests (their
 * arrival times, epoch ms) and answering which it admits. Audit scores a hypothesis by how
 * many of the endpoint's own decisions it reproduces, so each model is the textbook
 * definition, not any one library's implementation.
 */

/** A family and the figures that define it. */
export type Hypothesis =
  | { family: 'fixed-window'; alignment: 'epoch' | 'first-request'; limit: number; windowMs: number }
  | { family: 'sliding-log'; limit: number; windowMs: number; deniedCount: boolean }
  | { family: 'sliding-counter'; limit: number; windowMs: number }
  | { family: 'token-bucket'; burst: number; ratePerSec: number; deniedCount: boolean };

/** One request as a model sees it: its arrival, epoch ms. */
export type Arrival = number;

/**
 * A model's state for one client. `admits` asks without changing anything; `commit`
 * records a decision (the model's own when replaying, the endpoint's when scoring). Between
 * commits, admission never gets harder with time: quota only comes back.
 */
interface Model {
  admits(t: Arrival): boolean;
  commit(t: Arrival, admitted: boolean): void;
}

/**
 * What `hypothesis` admits of one client's arrivals (times in non-decreasing order), in
 * order. The client starts fresh: no earlier requests.
 */
export function replay(hypothesis: Hypothesis, arrivals: readonly Arrival[]): boolean[] {
  const model = modelOf(hypothesis);
  return arrivals.map((t) => {
    const admitted = model.admits(t);
    model.commit(t, admitted);
    return admitted;
  });
}

/** One decided request as scored: the span it was decided in (sent to answered), and its outcome. */
export interface Decided {
  earliest: Arrival;
  latest: Arrival;
  /** The best guess of when it was decided, inside the span. */
  at: Arrival;
  admitted: boolean;
}

/**
 * How many of the endpoint's decisions `hypothesis` agrees with, each judged on the
 * endpoint's own history so far (a miss does not carry into the next): an admission
 * agrees when the model admits by the end of the request's span, a denial when it denies
 * at its start. The endpoint decided somewhere in that span; this forgives no more.
 */
export function agreements(hypothesis: Hypothesis, decisions: readonly Decided[]): boolean[] {
  const model = modelOf(hypothesis);
  return decisions.map((d) => {
    const agrees = d.admitted ? model.admits(d.latest) : !model.admits(d.earliest);
    model.commit(d.at, d.admitted);
    return agrees;
  });
}

function modelOf(h: Hypothesis): Model {
  switch (h.family) {
    case 'fixed-window':
      return h.alignment === 'epoch' ? epochWindow(h.limit, h.windowMs) : firstRequestWindow(h.limit, h.windowMs);
    case 'sliding-log':
      return slidingLog(h.limit, h.windowMs, h.deniedCount);
    case 'sliding-counter':
      return slidingCounter(h.limit, h.windowMs);
    case 'token-bucket':
      return tokenBucket(h.burst, h.ratePerSec, h.deniedCount);
  }
}

/** Windows `[kW, (k+1)W)` of the epoch clock, `limit` each. */
function epochWindow(limit: number, windowMs: number): Model {
  let index = -Infinity;
  let count = 0;
  const countAt = (t: Arrival) => (Math.floor(t / windowMs) === index ? count : 0);
  return {
    admits: (t) => countAt(t) < limit,
    commit(t, admitted) {
      count = countAt(t);
      index = Math.floor(t / windowMs);
      if (admitted) count++;
    },
  };
}

/** A window opened by the first request after the last one closed, `limit` in it. */
function firstRequestWindow(limit: number, windowMs: number): Model {
  let start = -Infinity;
  let count = 0;
  const open = (t: Arrival) => t < start + windowMs;
  return {
    admits: (t) => !open(t) || count < limit,
    commit(t, admitted) {
      if (!open(t)) [start, count] = [t, 0];
      if (admitted) count++;
    },
  };
}

/** At most `limit` in any `(t - W, t]`; with `deniedCount` a denied request is logged too. */
function slidingLog(limit: number, windowMs: number, deniedCount: boolean): Model {
  const log: number[] = [];
  let head = 0;
  const liveAt = (t: Arrival) => {
    let first = head;
    while (first < log.length && (log[first] as number) <= t - windowMs) first++;
    return first;
  };
  return {
    admits: (t) => log.length - liveAt(t) < limit,
    commit(t, admitted) {
      head = liveAt(t);
      if (admitted || deniedCount) log.push(t);
    },
  };
}

/** Two epoch-aligned counters, estimate `prev * (W - elapsed) / W + cur`, admitted while within `limit`. */
function slidingCounter(limit: number, windowMs: number): Model {
  let index = -Infinity;
  let prev = 0;
  let cur = 0;
  const countsAt = (t: Arrival): [number, number, number] => {
    const now = Math.floor(t / windowMs);
    if (now === index) return [now, prev, cur];
    return [now, now === index + 1 ? cur : 0, 0];
  };
  return {
    admits(t) {
      const [now, p, c] = countsAt(t);
      const elapsed = t - now * windowMs;
      return (p * (windowMs - elapsed)) / windowMs + c + 1 <= limit;
    },
    commit(t, admitted) {
      [index, prev, cur] = countsAt(t);
      if (admitted) cur++;
    },
  };
}

/**
 * A bucket of `burst` tokens, full at first, refilled at `ratePerSec`; a request takes one.
 * With `deniedCount` a denied request takes one too (the bucket goes below zero).
 */
function tokenBucket(burst: number, ratePerSec: number, deniedCount: boolean): Model {
  let tokens = burst;
  let last = -Infinity;
  const tokensAt = (t: Arrival) =>
    last === -Infinity ? burst : Math.min(burst, tokens + (Math.max(0, t - last) * ratePerSec) / 1000);
  return {
    admits: (t) => tokensAt(t) >= 1 - 1e-9,
    commit(t, admitted) {
      tokens = tokensAt(t);
      last = Math.max(last, t);
      if (admitted || deniedCount) tokens -= 1;
    },
  };
}

/** The hypothesis in words: `token bucket, 20 per 1s, burst 40`. */
export function describeHypothesis(h: Hypothesis): string {
  switch (h.family) {
    case 'fixed-window':
      return `fixed window (${h.alignment === 'epoch' ? 'epoch-aligned' : 'from the first request'}), ${h.limit} per ${h.windowMs} ms`;
    case 'sliding-log':
      return `sliding log, ${h.limit} per ${h.windowMs} ms${h.deniedCount ? ', denials logged' : ''}`;
    case 'sliding-counter':
      return `sliding counter, ${h.limit} per ${h.windowMs} ms`;
    case 'token-bucket':
      return `token bucket, ${round3(h.ratePerSec)}/s, burst ${h.burst}${h.deniedCount ? ', denials spend tokens' : ''}`;
  }
}

function round3(value: number): number {
  return Number(value.toPrecision(3));
}
