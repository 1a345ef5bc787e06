import type { ScriptClient } from './run-script.js';
import type { LuaScript } from './scripts.js';
import type { DeadlineQueue } from './timeout.js';

interface Entry {
  key: string;
  cost: string;
  now: string;
  resolve: (reply: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Sends decisions to Redis, batched: the calls requested in one event-loop turn are
 * collected (`setImmediate`, not `process.nextTick`: requests from separate sockets arrive
 * in separate ticks of one turn, and nextTick batches shrink to 1) and sent as one script
 * call per hash slot, at most `maxKeys` keys each, so the per-command cost of Redis and of
 * the client is paid once per batch. With `maxKeys` 1 every call is sent at once, alone.
 * Each call resolves with its own reply (the script's 4 numbers, or the text of an error
 * of its key alone); a timeout or an error of a script call rejects only the calls in it.
 */
export class ScriptBatcher {
  private readonly pending = new Map<number, Entry[]>();
  private scheduled = false;

  constructor(
    private readonly client: ScriptClient,
    private readonly script: LuaScript,
    private readonly deadlines: DeadlineQueue,
    private readonly maxKeys: number,
  ) {}

  /** `key`'s reply: `cost` and `now` as the script reads them ('' now: the server's time). */
  submit(slot: number, key: string, cost: string, now: string): Promise<unknown> {
    if (this.maxKeys === 1) return this.deadlines.run(this.client.run(this.script, [key], [cost, now])).then(only);
    return new Promise((resolve, reject) => {
      const entries = this.pending.get(slot);
      const entry = { key, cost, now, resolve, reject };
      if (entries === undefined) this.pending.set(slot, [entry]);
      else entries.push(entry);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flush);
      }
    });
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    for (const entries of this.pending.values()) {
      for (let start = 0; start < entries.length; start += this.maxKeys) this.send(entries.slice(start, start + this.maxKeys));
    }
    this.pending.clear();
  };

  private send(entries: Entry[]): void {
    const keys = entries.map((entry) => entry.key);
    const args: string[] = [];
    for (const entry of entries) args.push(entry.cost, entry.now);
    this.deadlines.run(this.client.run(this.script, keys, args)).then(
      (replies) => {
        if (!Array.isArray(replies) || replies.length !== entries.length) {
          const error = new Error(`unexpected script reply ${JSON.stringify(replies)}`);
          for (const entry of entries) entry.reject(error);
          return;
        }
        entries.forEach((entry, i) => entry.resolve(replies[i]));
      },
      (error: unknown) => {
        for (const entry of entries) entry.reject(error);
      },
    );
  }
}

function only(replies: unknown): unknown {
  if (!Array.isArray(replies) || replies.length !== 1) throw new Error(`unexpected script reply ${JSON.stringify(replies)}`);
  return replies[0];
}
