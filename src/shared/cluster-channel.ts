import {
  MAX_BATCH,
  TAG,
  type RESET,
  hostNowMs,
  isBatchReply,
  type ClusterBatch,
  type ClusterBatchReply,
  type ClusterResult,
} from './cluster-protocol.js';
import type { NamedLimits } from '../core/policy.js';

/** One call waiting for the primary. */
export interface ChannelCall {
  readonly key: string;
  /** Units to take, or {@link RESET}. */
  readonly cost: number | typeof RESET;
  /** The primary's result; `undefined` or `null` when the primary was late (the fail mode decides). */
  settle(result: ClusterResult | undefined): void;
}

/**
 * Batches of one limiter in flight at once: the next batch is collected while the primary
 * decides the one before, and what the worker asks for beyond that waits in the worker.
 */
const MAX_IN_FLIGHT = 2;

/** The batches sent and not yet answered, by number, across every limiter of this process. */
const inFlight = new Map<number, (reply: ClusterBatchReply) => void>();
let nextBatch = 0;

function onMessage(message: unknown): void {
  if (!isBatchReply(message)) return;
  // Unknown: answered after its timeout, and the fail mode has decided already.
  inFlight.get(message.batch)?.(message);
}

/**
 * A worker's side of one limiter's IPC with the primary. Calls made in one event-loop turn
 * go as one message (`setImmediate`, as the Redis batcher, so calls from separate sockets of
 * one turn share it), at most {@link MAX_BATCH} calls each and {@link MAX_IN_FLIGHT}
 * messages unanswered: the rest queue here, and that queue is backpressure, not lateness.
 * The timeout runs per message from when it is sent, so it measures only what the primary
 * is late on (a bounded batch), never the time a call queued behind others in this worker.
 * A message unanswered after `timeoutMs` gets the fail mode (the primary will not apply it
 * past its deadline). Whether the calls queued behind it do too depends on progress: a
 * primary that answered nothing of this channel since the message was sent is stuck
 * (stopped, blocked, gone), and the queue fails over at once, so no call waits more than
 * about twice `timeoutMs` for a stuck primary (once when it stops between two answers); one
 * that answered other messages meanwhile is slow, and the queue waits its turn.
 */
export class ClusterChannel {
  private queue: ChannelCall[] = [];
  private scheduled = false;
  /** This channel's messages in flight. */
  private sent = 0;
  /** When the primary last answered a message of this channel ({@link hostNowMs}). */
  private answeredAt = -Infinity;
  /** The limiter's limits, sent with every batch until the primary accepts one (then it knows them). */
  private policies: readonly NamedLimits[] | undefined;

  constructor(
    private readonly name: string,
    private readonly timeoutMs: number,
    policies?: readonly NamedLimits[],
  ) {
    this.policies = policies;
    if (process.listeners('message').indexOf(onMessage) < 0) process.on('message', onMessage);
  }

  submit(call: ChannelCall): void {
    this.queue.push(call);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    this.pump();
  };

  private pump(): void {
    while (this.sent < MAX_IN_FLIGHT && this.queue.length > 0) this.send(this.queue.splice(0, MAX_BATCH));
  }

  private send(calls: ChannelCall[]): void {
    const batch = (nextBatch = (nextBatch + 1) % Number.MAX_SAFE_INTEGER);
    // The primary applies nothing past `deadline`, and this worker decides by its fail mode
    // only past it: a call is decided by one of them, never both (but for a reply still in
    // the pipe at that instant).
    const sentAt = hostNowMs();
    const deadline = sentAt + this.timeoutMs;
    let done = false;
    const finish = (reply: ClusterBatchReply | undefined, gone = false): void => {
      if (done) return;
      done = true;
      cancel();
      inFlight.delete(batch);
      this.sent -= 1;
      if (reply !== undefined) {
        this.answeredAt = hostNowMs();
        if (reply.error === undefined) this.policies = undefined;
        settleAll(calls, reply);
      } else {
        this.failOver(calls, gone || this.answeredAt < sentAt);
      }
      this.pump();
    };
    const cancel = whenPast(deadline, () => finish(undefined));
    this.sent += 1;
    inFlight.set(batch, finish);
    const message: ClusterBatch = {
      tag: TAG,
      batch,
      name: this.name,
      deadline,
      keys: calls.map((c) => c.key),
      costs: calls.map((c) => c.cost),
      ...(this.policies === undefined ? {} : { policies: this.policies }),
    };
    // A closed channel (the primary is gone) fails over at once rather than at the timeout.
    process.send?.(message, undefined, undefined, (error: Error | null) => {
      if (error) finish(undefined, true);
    });
  }

  /** The primary was late on `calls`: they get the fail mode, and so do the queued calls if it is `stuck`. */
  private failOver(calls: readonly ChannelCall[], stuck: boolean): void {
    for (const call of calls) call.settle(undefined);
    if (!stuck) return;
    const queued = this.queue;
    this.queue = [];
    for (const call of queued) call.settle(undefined);
  }
}

/**
 * Calls `onPast` once `deadline` ({@link hostNowMs}) has passed; returns what cancels it. The
 * timer only wakes the check: libuv dates a timer from the loop's cached time, which may be
 * before `deadline` was read, so the check rearms until the deadline has passed. And the
 * check waits for the check phase of that loop iteration (libuv runs timers before it polls
 * for I/O), so a reply that reached this worker by then is read first, even when this worker
 * was the one running late.
 */
function whenPast(deadline: number, onPast: () => void): () => void {
  let timer: ReturnType<typeof setTimeout>;
  const check = (): void => {
    const left = deadline - hostNowMs();
    if (left > 0) arm(left);
    else onPast();
  };
  const arm = (ms: number): void => {
    timer = setTimeout(() => setImmediate(check), ms);
    timer.unref();
  };
  arm(deadline - hostNowMs());
  return () => clearTimeout(timer);
}

function settleAll(calls: readonly ChannelCall[], reply: ClusterBatchReply): void {
  for (let i = 0; i < calls.length; i++) {
    const result = reply.error === undefined ? reply.results[i] : { error: reply.error };
    (calls[i] as ChannelCall).settle(result);
  }
}
