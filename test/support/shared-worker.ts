// A worker thread for the shared limiter's tests: attaches to the handle it is given and
// runs what the test thread asks, one message at a time.
import { parentPort, workerData } from 'node:worker_threads';
import { KeyCodec } from '../../src/shared/key-codec.js';
import { specOf, type SharedLimiterHandle } from '../../src/shared/handle.js';
import { SLOT, SLOT_WORDS, layout } from '../../src/shared/layout.js';
import { attachSharedLimiter, type SharedRateLimiter } from '../../src/shared/limiter.js';

/** What the test thread asks. */
export type WorkerTask =
  /** Attach; with `clock`, time is its element 0 (a shared Float64Array the test thread moves). */
  | { type: 'attach'; handle: SharedLimiterHandle; clock?: SharedArrayBuffer }
  /** `allow(keys[i % keys.length])` for i < calls; answers how many were admitted. */
  | { type: 'count'; keys: string[]; calls: number }
  /** `consume(key, cost)` for each op; answers [allowed, remaining, retryAfterMs, resetMs] each. */
  | { type: 'run'; ops: Array<[string, number]> }
  /** Leaves `key`'s row lock held by a token no live thread owns (then the test ends this worker). */
  | { type: 'hold'; key: string };

let limiter: SharedRateLimiter | undefined;
let handle: SharedLimiterHandle | undefined;

function answer(task: WorkerTask): unknown {
  switch (task.type) {
    case 'attach': {
      handle = task.handle;
      const time = task.clock ? new Float64Array(task.clock) : undefined;
      limiter = attachSharedLimiter(task.handle, time ? { clock: () => time[0] as number } : {});
      return 'attached';
    }
    case 'count': {
      let admitted = 0;
      for (let i = 0; i < task.calls; i++) if (limiter?.allow(task.keys[i % task.keys.length] as string)) admitted += 1;
      return admitted;
    }
    case 'run':
      return task.ops.map(([key, cost]) => {
        const d = (limiter as SharedRateLimiter).consume(key, cost);
        return [d.allowed, d.remaining, d.retryAfterMs, d.resetMs];
      });
    case 'hold':
      return hold(task.key);
  }
}

/** Writes a dead holder's token into the lock word of the row holding `key`; returns the row. */
function hold(key: string): number {
  const h = handle as SharedLimiterHandle;
  const spec = specOf(h);
  const view = layout(spec, h.buffer);
  const codec = new KeyCodec(spec.maxKeyBytes);
  const hash = codec.encode(key);
  for (let i = 0; i < spec.slots; i++) {
    const slot = (hash + i) & (spec.slots - 1);
    if (view.slots[slot * SLOT_WORDS + SLOT.hash] === hash) {
      const row = view.slots[slot * SLOT_WORDS + SLOT.row] as number;
      Atomics.store(view.rowLocks, row, 0x3fff_f001); // a member id no thread has
      return row;
    }
  }
  throw new Error(`hold: ${key} is not in the table`);
}

parentPort?.on('message', (task: WorkerTask) => parentPort?.postMessage(answer(task)));
if (workerData?.ready) parentPort?.postMessage('ready');
