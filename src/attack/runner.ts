import { Agent, request, type ClientRequest, type IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { MAX_TIMER_MS } from '../core/clock.js';
import { RatelabError } from '../core/errors.js';
import { unsendableKey } from './header-key.js';
import { alignedStartEpoch, countEvents, type AttackEvent, type AttackStream } from './schedule.js';
import { ABORTED, isAdmitted, rateLimitFields, retryAfterMsOf, type Shot } from './shot.js';

/** Options of {@link runAttack}. Times are wall-clock milliseconds unless said otherwise. */
export interface AttackRunOptions {
  url: URL;
  stream: AttackStream;
  /** The scenario time sent at the start (default: the first event's, as for a trace). */
  originMs?: number;
  /** Scenario milliseconds per wall millisecond: 2 replays twice as fast, 0.5 at half speed. */
  speed: number;
  /** Events this long or longer after the origin are not sent. */
  durationMs: number;
  /** The header that carries each event's key. */
  keyHeader: string;
  /**
   * Keep the replay's phase against this period of the epoch clock (to line up with a
   * server's fixed windows): scenario time `t` is sent at an epoch time congruent to
   * `t / speed` modulo `alignMs` (see {@link alignedStartEpoch}).
   */
  alignMs?: number;
  /** Most requests in flight, and connections kept open. */
  connections: number;
  /** Most requests sent in all (scenario events and Retry-After probes). */
  maxRequests: number;
  /**
   * The run's wall-time budget: nothing is sent later than this after the start, and the
   * requests still in flight then are cut off (`aborted`, see {@link ABORTED}).
   */
  maxTimeMs: number;
  /**
   * A request without a complete response (status line, headers and the whole body) this
   * long after it left is cut off and counts as an error (`timeout`): a server that
   * drips its body cannot hold a request longer.
   */
  timeoutMs: number;
  /** After a 429 with Retry-After, retry that key once at that time to check the promise. Default true. */
  probeRetryAfter?: boolean;
  /** Stops the run: nothing more is sent and the requests in flight are cut off (`aborted`). */
  signal?: AbortSignal;
  /** Told of each request as it leaves (events and probes; `probeOf` tells them apart). */
  onSend?: (shot: Shot) => void;
  /** Told of each request once its response (or error) is complete. */
  onResponse?: (shot: Shot) => void;
}

/** Why the run ended. */
export type StopReason = 'done' | 'max-requests' | 'max-time' | 'interrupted';

/** Everything one run saw. */
export interface AttackRun {
  shots: Shot[];
  /** Epoch ms of scenario time 0. */
  startEpochMs: number;
  stoppedBy: StopReason;
  /** The latest any request left after its scheduled time, wall ms: how well the run kept time. */
  maxLagMs: number;
  /** Scenario events not sent because the run stopped early (counted up to 10 million). */
  unsent: number;
}

/** Counting unsent events stops here (a lazy stream may hold many millions). */
const MAX_UNSENT_COUNTED = 10_000_000;

interface Probe {
  dueMs: number;
  key: string;
  of: number;
}

/**
 * Replays `stream` against `url` in real time: event `t` is sent `(t - origin) / speed`
 * wall ms after the start, with its key in `keyHeader`. At most `connections` requests are in
 * flight (kept-alive connections); an event whose time comes while all are busy waits
 * for one and is recorded at its real sending time. Connection errors and timeouts are
 * recorded, never thrown; a key a header cannot carry unchanged (see unsendableKey) throws
 * `INVALID_ARGUMENT` before its request. Stops sending at the stream's end, `maxRequests`, `maxTimeMs` or
 * the signal, then waits for the requests in flight: each is bounded by `timeoutMs`, and
 * at `maxTimeMs` or on the signal those left are cut off ({@link ABORTED}). So the run
 * never lasts much longer than `maxTimeMs` (plus an `alignMs` wait), whatever the endpoint does.
 */
export async function runAttack(options: AttackRunOptions): Promise<AttackRun> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const runner = new Runner(options, agent);
  try {
    return await runner.run();
  } finally {
    agent.destroy();
  }
}

/** One run of {@link runAttack}: its shots, the requests in flight, the probes due, and why it stopped. */
class Runner {
  private readonly shots: Shot[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly probes: Probe[] = [];
  private readonly probing = new Set<string>();
  /** The requests in flight, each with the way to cut it off. */
  private readonly requests = new Map<ClientRequest, (reason: string) => void>();
  /** Aborts every wait of the run once it must stop (`maxTimeMs` or the caller's signal). */
  private readonly stop = new AbortController();
  private haltedBy: StopReason | undefined;
  private startPerf = 0;
  private originMs = 0;
  private maxLagMs = 0;

  constructor(
    private readonly options: AttackRunOptions,
    private readonly agent: Agent,
  ) {}

  /** Waits for the start (aligned when asked), replays the stream, and returns what the run saw. */
  async run(): Promise<AttackRun> {
    const { stream, durationMs } = this.options;
    let event = stream.next();
    this.originMs = this.options.originMs ?? event?.t ?? 0;
    if (event && event.t - this.originMs >= durationMs) event = undefined;
    const startEpochMs = this.alignedStart();
    const deadline = this.armDeadline();
    const unwatch = this.watchSignal();
    try {
      await this.waitUntil(0);
      return await this.loop(event, startEpochMs);
    } finally {
      clearTimeout(deadline);
      unwatch();
    }
  }

  /** Sends until a limit is reached or the events run out, then waits for the requests in flight. */
  private async loop(first: AttackEvent | undefined, startEpochMs: number): Promise<AttackRun> {
    const { stream, speed, durationMs } = this.options;
    let event = first;
    let stoppedBy: StopReason = 'done';
    for (;;) {
      const eventDue = event ? (event.t - this.originMs) / speed : Infinity;
      const probeDue = this.probes[0]?.dueMs ?? Infinity;
      const due = Math.min(eventDue, probeDue);
      if (due === Infinity) {
        if (this.inFlight.size === 0) break;
        // A response still to come may schedule a probe.
        await Promise.race(this.inFlight);
        continue;
      }
      stoppedBy = this.limitReached(due);
      if (stoppedBy !== 'done') break;
      if (!(await this.waitUntil(due))) continue;
      await this.freeSlot();
      if (this.haltedBy !== undefined) continue;
      if (probeDue <= eventDue) {
        const probe = this.probes.shift() as Probe;
        this.send(probe.key, probe.dueMs, probe.of);
        continue;
      }
      const sent = this.send((event as AttackEvent).key, eventDue, undefined);
      if (stream.closedLoop) {
        await sent;
        const shot = this.shots[this.shots.length - 1] as Shot;
        const allowed = isAdmitted(shot);
        stream.react?.(allowed, allowed ? 0 : retryAfterMsOf(shot) * speed);
      }
      event = this.nextEvent(stream, durationMs);
    }
    await Promise.all(this.inFlight);
    // Requests cut off after the sending stopped for another reason: say what cut them.
    if (stoppedBy === 'done' && this.haltedBy !== undefined) stoppedBy = this.haltedBy;
    const unsent = event ? 1 + this.drain(stream, durationMs) : 0;
    return { shots: this.shots, startEpochMs, stoppedBy, maxLagMs: this.maxLagMs, unsent };
  }

  /** Halts the run when the caller's signal aborts; returns the unsubscription. */
  private watchSignal(): () => void {
    const { signal } = this.options;
    if (!signal) return () => undefined;
    const interrupted = () => this.halt('interrupted');
    if (signal.aborted) interrupted();
    signal.addEventListener('abort', interrupted, { once: true });
    return () => signal.removeEventListener('abort', interrupted);
  }

  /** The timer that halts the run `maxTimeMs` after the start; none past a timer's range. */
  private armDeadline(): NodeJS.Timeout | undefined {
    const delay = Math.max(0, this.options.maxTimeMs - this.elapsed());
    return delay > MAX_TIMER_MS ? undefined : setTimeout(() => this.halt('max-time'), delay);
  }

  /** Stops the run: every wait ends, nothing more is sent, the requests in flight are cut off. */
  private halt(reason: StopReason): void {
    if (this.haltedBy !== undefined) return;
    this.haltedBy = reason;
    this.stop.abort();
    for (const cut of [...this.requests.values()]) cut(ABORTED);
  }

  private limitReached(dueMs: number): StopReason {
    if (this.haltedBy !== undefined) return this.haltedBy;
    if (this.shots.length >= this.options.maxRequests) return 'max-requests';
    if (dueMs > this.options.maxTimeMs) return 'max-time';
    return 'done';
  }

  private nextEvent(stream: AttackStream, durationMs: number): AttackEvent | undefined {
    const event = stream.next();
    return event && event.t - this.originMs < durationMs ? event : undefined;
  }

  /**
   * Counts the events left, up to {@link MAX_UNSENT_COUNTED} (closed-loop streams cannot
   * be drained without decisions: 0).
   */
  private drain(stream: AttackStream, durationMs: number): number {
    if (stream.closedLoop) return 0;
    return countEvents(stream, this.originMs + durationMs, MAX_UNSENT_COUNTED);
  }

  /** Sets the start: the aligned one (now without `alignMs`), to be waited for; returns it in epoch ms. */
  private alignedStart(): number {
    const { alignMs, speed } = this.options;
    const nowEpoch = Date.now();
    const startEpoch = alignMs ? alignedStartEpoch(nowEpoch, this.originMs, speed, alignMs) : nowEpoch;
    this.startPerf = performance.now() + (startEpoch - nowEpoch);
    return startEpoch;
  }

  private elapsed(): number {
    return performance.now() - this.startPerf;
  }

  /** Sleeps until wall time `ms` after the start; false if the run halted first. */
  private async waitUntil(ms: number): Promise<boolean> {
    const wait = ms - this.elapsed();
    if (wait < 1) return true;
    try {
      await sleep(wait, undefined, { signal: this.stop.signal });
      return true;
    } catch {
      return false;
    }
  }

  private async freeSlot(): Promise<void> {
    while (this.inFlight.size >= this.options.connections) await Promise.race(this.inFlight);
  }

  private send(key: string, scheduledMs: number, probeOf: number | undefined): Promise<void> {
    const unsendable = unsendableKey(key, `header ${this.options.keyHeader}`);
    if (unsendable !== undefined) throw new RatelabError('INVALID_ARGUMENT', unsendable, { field: 'keyHeader' });
    const sentMs = this.elapsed();
    this.maxLagMs = Math.max(this.maxLagMs, sentMs - scheduledMs);
    const shot: Shot = {
      sentMs,
      key,
      probeOf,
      status: undefined,
      error: undefined,
      latencyMs: 0,
      headersMs: undefined,
      headers: {},
    };
    const index = this.shots.push(shot) - 1;
    this.options.onSend?.(shot);
    const done = this.exchange(shot).then(() => {
      this.afterResponse(shot, index);
      this.options.onResponse?.(shot);
    });
    this.inFlight.add(done);
    void done.then(() => this.inFlight.delete(done));
    return done;
  }

  /**
   * Sends one request and records what came back. Its deadline covers the whole response:
   * at `timeoutMs` (or when the run halts) the request is destroyed, whether the endpoint
   * is still to answer or still sending the body; a response cut off keeps no status.
   */
  private exchange(shot: Shot): Promise<void> {
    const { url, keyHeader, timeoutMs } = this.options;
    return new Promise<void>((resolve) => {
      let response: IncomingMessage | undefined;
      let cutBy: string | undefined;
      let finished = false;
      const finish = (error: string | undefined) => {
        if (finished) return;
        finished = true;
        clearTimeout(deadline);
        this.requests.delete(req);
        const failure = cutBy ?? error;
        if (failure !== undefined) [shot.status, shot.error] = [undefined, failure];
        shot.latencyMs = this.elapsed() - shot.sentMs;
        resolve();
      };
      const req = request(url, { agent: this.agent, method: 'GET', headers: { [keyHeader]: shot.key } }, (res) => {
        response = res;
        shot.status = res.statusCode;
        shot.headers = rateLimitFields(res.headers);
        shot.headersMs = this.elapsed() - shot.sentMs;
        res.on('error', (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
        res.on('end', () => finish(undefined));
        res.resume();
      });
      const cut = (reason: string) => {
        cutBy ??= reason;
        req.destroy();
      };
      const deadline = timeoutMs > MAX_TIMER_MS ? undefined : setTimeout(() => cut('timeout'), timeoutMs);
      this.requests.set(req, cut);
      req.on('error', (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
      // The last word on a request destroyed without an error event (or mid-body).
      req.on('close', () => finish(response?.complete ? undefined : 'ECONNRESET'));
      req.end();
    });
  }

  /** Schedules a probe at a 429's Retry-After (one pending per key), within the request budget. */
  private afterResponse(shot: Shot, index: number): void {
    if (shot.probeOf !== undefined) this.probing.delete(shot.key);
    if (this.options.probeRetryAfter === false || shot.status !== 429 || shot.probeOf !== undefined) return;
    const waitMs = retryAfterMsOf(shot);
    if (!Number.isFinite(waitMs) || this.probing.has(shot.key)) return;
    this.probing.add(shot.key);
    const probe = { dueMs: this.elapsed() + waitMs, key: shot.key, of: index };
    const at = this.probes.findIndex((p) => p.dueMs > probe.dueMs);
    this.probes.splice(at < 0 ? this.probes.length : at, 0, probe);
  }
}
