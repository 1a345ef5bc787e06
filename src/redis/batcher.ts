import type { ScriptClient } from './run-script.js';
import type { LuaScript } from './scripts.js';
import type { DeadlineQueue } from './timeout.js';

/** One decision waiting for Redis. */
export interface BatchCall {
  readonly key: string;
  /** As the script reads them: a whole number, and ms or '' for the server's time. */
  readonly cost: string;
  readonly now: string;
  /** The script's reply: this call's 4 entries start at `replies[at]`. */
  answer(replies: readonly unknown[], at: number): void;
  /** The script call carrying this decision failed or timed out. */
  fail(error: unknown): void;
}

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
  private readonly pending = new Map<number, BatchCall[]>();
  private scheduled = false;

  constructor(
    private readonly client: ScriptClient,
    private readonly script: LuaScript,
    private readonly deadlines: DeadlineQueue,
    private readonly maxKeys: number,
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

  private readonly flush = (): void => {
    this.scheduled = false;
    for (const calls of this.pending.values()) {
      if (calls.length <= this.maxKeys) this.send(calls);
      else for (let start = 0; start < calls.length; start += this.maxKeys) this.send(calls.slice(start, start + this.maxKeys));
    }
    this.pending.clear();
  };

  private send(calls: BatchCall[]): void {
    // ARGV: '' (the server's time, or per-key times follow), the costs, then the times of a
    // caller's clock when there is one (a limiter has one for all its calls or none).
    const keys: string[] = [];
    const args: string[] = [''];
    for (const call of calls) {
      keys.push(call.key);
      args.push(call.cost);
    }
    if ((calls[0] as BatchCall).now !== '') for (const call of calls) args.push(call.now);
    this.deadlines.run(this.client.run(this.script, keys, args)).then(
      (replies) => {
        if (!Array.isArray(replies) || replies.length !== 4 * calls.length) {
          const error = new Error(`unexpected script reply ${JSON.stringify(replies)}`);
          for (const call of calls) call.fail(error);
          return;
        }
        for (let i = 0; i < calls.length; i++) (calls[i] as BatchCall).answer(replies, 4 * i);
      },
      (error: unknown) => {
        for (const call of calls) call.fail(error);
      },
    );
  }
}
