import { performance } from 'node:perf_hooks';
import { timeBound } from '../core/time-bound.js';

/** Thrown (as a rejection) when a Redis call did not answer within its time bound. */
export class RedisTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`Redis did not answer within ${timeoutMs} ms`);
    this.name = 'RedisTimeoutError';
  }
}

/**
 * `work`, or a rejection after `timeoutMs`, whichever comes first. The bound is ours, not
 * the client's: a client built with default options queues commands while disconnected
 * and retries for seconds (envoy ratelimit #462), and the limiter must answer regardless.
 * A late answer is dropped (its rejection is swallowed, never unhandled).
 */
export function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  return timeBound(work, timeoutMs, () => new RedisTimeoutError(timeoutMs));
}

interface Pending {
  deadline: number;
  settled: boolean;
  reject: (error: unknown) => void;
}

const RELEASED = (): void => undefined;

/**
 * {@link withTimeout} for a stream of calls sharing one timeout, with one timer instead of
 * one per call (a timer per call was a measurable share of a decision's CPU). Deadlines
 * come in call order, so pending calls form a queue and only the oldest unsettled one
 * needs the timer; when it fires, every call past its deadline is rejected. The timer never
 * keeps the process alive by itself. A settled call is let go at once (dropped from the
 * front, or its callback released behind an unsettled one), not at the next timer: held
 * until then, thousands of settled calls a second outlive young-generation GCs and lengthen
 * the scavenge pauses (bench/redis-gc.ts measures them against rate-limiter-flexible's).
 */
export class DeadlineQueue {
  private queue: Pending[] = [];
  private head = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly timeoutMs: number) {}

  /** `work`, or a {@link RedisTimeoutError} after `timeoutMs`, whichever comes first. */
  run<T>(work: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: Pending = { deadline: performance.now() + this.timeoutMs, settled: false, reject };
      this.queue.push(entry);
      if (this.timer === undefined) this.arm();
      work.then(
        (value) => {
          if (entry.settled) return;
          this.release(entry);
          resolve(value);
        },
        (error: unknown) => {
          if (entry.settled) return;
          this.release(entry);
          reject(error);
        },
      );
    });
  }

  /** Calls held: unsettled ones, and settled ones behind the oldest unsettled one. */
  get held(): number {
    return this.queue.length - this.head;
  }

  private release(entry: Pending): void {
    entry.settled = true;
    entry.reject = RELEASED;
    if (this.queue[this.head] !== entry) return;
    while (this.head < this.queue.length && (this.queue[this.head] as Pending).settled) this.head += 1;
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    }
  }

  /** Drops settled calls from the front, and sets the timer for the oldest one left. */
  private arm(): void {
    while (this.head < this.queue.length && (this.queue[this.head] as Pending).settled) this.head += 1;
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
      this.timer = undefined;
      return;
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    const wait = (this.queue[this.head] as Pending).deadline - performance.now();
    // Unref'd: the timer only bounds calls, whose sockets keep the process alive while they
    // wait; once they settle, a stale timer must not hold a finished process for timeoutMs.
    // (Clearing it at every idle moment instead would re-arm it per call in a sequential stream.)
    this.timer = setTimeout(this.expire, Math.max(0, wait));
    this.timer.unref();
  }

  // Timers run before the event loop reads sockets: after a stall (GC, a busy shared CPU)
  // the timer would reject calls whose replies already sit unread in their sockets, and a
  // healthy Redis node would look failed. Rejecting in the check phase, after that read,
  // lets a reply that arrived in time win.
  private readonly expire = (): void => {
    setImmediate(this.expireNow);
  };

  private readonly expireNow = (): void => {
    const now = performance.now();
    while (this.head < this.queue.length) {
      const entry = this.queue[this.head] as Pending;
      if (!entry.settled && entry.deadline > now) break;
      if (!entry.settled) {
        const reject = entry.reject;
        entry.settled = true;
        entry.reject = RELEASED;
        reject(new RedisTimeoutError(this.timeoutMs));
      }
      this.head += 1;
    }
    this.arm();
  };
}
