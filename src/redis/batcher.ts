import type { RedisKey } from './redis-key.js';
import type { ScriptClient } from './run-script.js';
import type { LuaScript } from './scripts.js';
import type { DeadlineQueue } from './timeout.js';

/** One decision waiting for Redis. */
export interface BatchCall {
  /** The key, or with several limits per key each limit's key, in the script's order. */
  readonly key: RedisKey | readonly RedisKey[];
  /** As the script reads them: a whole number, and ms or '' for the server's time. */
  readonly cost: string;
  readonly now: string;
  /** The script's reply: this call's entries (4 for one limit; for several, see scripts.ts's replyWidths) start at `replies[at]`. */
  answer(replies: readonly unknown[], at: number): void;
  /** The script call carrying this decision failed or timed out. */
  fail(error: unknown): void;
}

/** The fewest calls a flush splits in two (below it the second script call costs more than the overlap saves). */
const MIN_SPLIT_CALLS = 8;

/**
 * Sends decisions to Redis, batched: the calls requested in one event-loop turn are
 * collected (`setImmediate`, not `process.nextTick`: requests from separate sockets arrive
 * in separate ticks of one turn, and nextTick batches shrink to 1) and sent as one script
 * call per hash slot, at most `maxKeys` keys each, so the per-command cost of Redis and of
 * the client is paid once per batch. With `maxKeys` 1 every call is sent at once, alone.
 * Each call gets its own 4 entries of the flat reply (numbers, or first the text of an
 * error of its key alone); a timeout or an error of a script call fails only the calls in
 * it. Calls are plain objects with callbacks, not promises: this runs once per decision.
 */
export class ScriptBatcher {
  // A fresh Map per flush, never clear(): once the Map had outlived two young-generation GCs
  // (it lives as long as the limiter), V8 kept the cleared table's entries reachable from
  // the old generation, so every batch's calls, promises and replies were promoted and the
  // scavenges copying them paused far longer (bench/redis-gc.ts measures the pauses).
  private pending = new Map<number, BatchCall[]>();
  private scheduled = false;
  /** Script calls sent and not yet answered. */
  private inFlight = 0;

  constructor(
    private readonly client: ScriptClient,
    private readonly script: LuaScript,
    private readonly deadlines: DeadlineQueue,
    private readonly maxKeys: number,
    /** Whether an idle flush goes as two script calls (see flush). */
    private readonly split = true,
    /** Reply entries per call: 4 for one limit; for several, the sum of their replyWidths. */
    private readonly entries = 4,
  ) {}

  /** Queues `call` for the batch of hash slot `slot` (or sends it now when batching is off). */
  submit(slot: number, call: BatchCall): void {
    if (this.maxKeys === 1) {
      this.send([call]);
      return;
    }
    const calls = this.pending.get(slot);
    if (calls === undefined) this.pending.set(slot, [call]);
    else calls.push(call);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  // With nothing in flight, a flush goes out as two script calls, not one: Redis runs the
  // second while this process handles the first one's replies, and the callers those
  // replies free make the next batch while the second still runs. One batch at a time kept
  // Node and Redis taking turns (bench/redis-batch-cap.ts --in-flight 50 compares the two;
  // at 500 in flight batches are already capped at maxKeys and overlap, and nothing splits).
  private readonly flush = (): void => {
    this.scheduled = false;
    const pending = this.pending;
    this.pending = new Map();
    for (const calls of pending.values()) {
      const split = this.split && this.inFlight === 0 && calls.length >= MIN_SPLIT_CALLS;
      const size = split ? Math.min(this.maxKeys, Math.ceil(calls.length / 2)) : this.maxKeys;
      if (calls.length <= size) this.send(calls);
      else for (let start = 0; start < calls.length; start += size) this.send(calls.slice(start, start + size));
    }
  };

  private send(calls: BatchCall[]): void {
    // ARGV: '' (the server's time, or per-key times follow), the costs, then the times of a
    // caller's clock when there is one (a limiter has one for all its calls or none).
    const keys: RedisKey[] = [];
    const args: string[] = [''];
    for (const call of calls) {
      if (Array.isArray(call.key)) for (const key of call.key as readonly RedisKey[]) keys.push(key);
      else keys.push(call.key as RedisKey);
      args.push(call.cost);
    }
    if ((calls[0] as BatchCall).now !== '') for (const call of calls) args.push(call.now);
    this.inFlight += 1;
    this.deadlines.run(this.client.run(this.script, keys, args)).then(
      (replies) => {
        this.inFlight -= 1;
        if (!Array.isArray(replies) || replies.length !== this.entries * calls.length) {
          const error = unexpectedReply(replies);
          for (const call of calls) call.fail(error);
          return;
        }
        for (let i = 0; i < calls.length; i++) (calls[i] as BatchCall).answer(replies, this.entries * i);
      },
      (error: unknown) => {
        this.inFlight -= 1;
        for (const call of calls) call.fail(error);
      },
    );
  }
}

/** The error for a script reply that is not the decisions asked for (what Redis sent, as JSON). */
export function unexpectedReply(reply: unknown): Error {
  return new Error(`unexpected script reply ${JSON.stringify(reply)}`);
}
