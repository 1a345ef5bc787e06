import FlatQueue from 'flatqueue';
import type { BackoffSpec, RetrySourceSpec } from '../../scenario/scenario.js';
import type { Arrival, TrafficSource } from '../arrival.js';
import { backoffWait } from '../backoff.js';
import { ClientThrottle } from '../client-throttle.js';
import type { KeyPicker } from '../keys.js';
import type { Random } from '../random.js';
import type { ServerLimit } from '../../core/server-limit.js';
import { AdaptiveBrain } from '../../wait/adaptive-brain.js';

/**
 * A closed loop of clients: each has one request outstanding, and what it does next
 * depends on the decision it got (see {@link RetrySourceSpec}). So each algorithm is
 * replayed with the retries its own Retry-After values cause: an algorithm that sends
 * every denied client back at the same instant meets that herd again.
 */
export class RetryClients implements TrafficSource {
  /** Client ids by the time of their next request. */
  private readonly queue: FlatQueue<number>;
  private readonly keyOf: string[];
  private readonly idOf: Int32Array;
  private readonly retries: Uint32Array;
  /** Each client's last backoff wait, ms (only with `backoff`). */
  private lastWait: Float64Array | undefined;
  /** When each client's current request was first wanted. */
  private readonly wantedAt: Float64Array;
  /** With `throttle`: the client-side throttle, and which queued clients hold a reservation (1) rather than a want (0). */
  private readonly throttle: ClientThrottle | undefined;
  private readonly reserved: Uint8Array | undefined;
  /** With `client: adaptive`: the adaptive client's brain, the one adaptiveThrottle runs, on this source's time. */
  private readonly adaptive: AdaptiveBrain | undefined;
  /** With `client: adaptive`: per key, the clients waiting in line (the first asks). */
  private readonly lines = new Map<string, number[]>();

  constructor(
    private readonly spec: RetrySourceSpec,
    keys: KeyPicker,
    private readonly random: Random,
  ) {
    this.queue = new FlatQueue<number>(spec.clients, Float64Array, Uint32Array);
    this.idOf = new Int32Array(spec.clients);
    this.keyOf = Array.from({ length: spec.clients }, (_, client) => {
      const key = keys.next();
      this.idOf[client] = keys.lastId;
      return key;
    });
    this.retries = new Uint32Array(spec.clients);
    this.wantedAt = new Float64Array(spec.clients);
    if (spec.throttle) {
      this.throttle = new ClientThrottle(spec.throttle.limit, spec.throttle.windowMs);
      this.reserved = new Uint8Array(spec.clients);
    }
    if (spec.client === 'adaptive') {
      this.adaptive = new AdaptiveBrain({}, () => random.uniform());
      this.reserved = new Uint8Array(spec.clients);
    }
    for (let client = 0; client < spec.clients; client++) {
      this.startRequest(client, spec.startMs + Math.floor(random.uniform() * (spec.rampMs + 1)));
    }
  }

  peek(): number {
    if (this.reserved) this.reserveAhead();
    return this.queue.peekValue() ?? Infinity;
  }

  take(): Arrival {
    if (this.reserved) this.reserveAhead();
    const t = this.queue.peekValue() as number;
    const client = this.queue.pop() as number;
    return {
      t,
      key: this.keyOf[client] as string,
      cost: this.spec.cost,
      id: this.idOf[client] as number,
      tag: client,
      label: this.spec.label,
      since: this.wantedAt[client] as number,
    };
  }

  react(arrival: Arrival, allowed: boolean, retryAfterMs: number, retryAfterGiven = true): void {
    const client = arrival.tag as number;
    const retries = this.retries[client] as number;
    if (this.adaptive) this.learn(this.adaptive, arrival, allowed, retryAfterMs, retryAfterGiven);
    if (allowed || retries >= this.spec.maxRetries || retryAfterMs === Infinity) {
      this.startRequest(client, arrival.t + this.spec.thinkMs);
      return;
    }
    this.retries[client] = retries + 1;
    if (this.adaptive) {
      // Wanted again at once: the adaptive client says when it goes.
      this.schedule(client, arrival.t);
      return;
    }
    const backoff = this.spec.backoff;
    if (backoff !== undefined && (!retryAfterGiven || this.spec.honourRetryAfter === false)) {
      this.schedule(client, arrival.t + this.backOff(client, backoff, retries));
      return;
    }
    const wait = Number.isFinite(retryAfterMs) && retryAfterMs >= 1 ? retryAfterMs : 1;
    this.schedule(client, arrival.t + Math.ceil(wait * (1 + this.spec.jitter * this.random.uniform())));
  }

  /**
   * A want of `client` at `t`, through the adaptive client as adaptiveThrottle queues it:
   * the clients of a key wait in line, first come first served, and only the first asks,
   * at the want's time (nothing is booked ahead, so a pause learned meanwhile holds it).
   * Admitted, it is sent at `t` and the next in line asks at once; denied, it asks again
   * when the brain says (whole ms).
   */
  private askAdaptive(brain: AdaptiveBrain, client: number, t: number): void {
    const key = this.keyOf[client] as string;
    let line = this.lines.get(key);
    if (!line) this.lines.set(key, (line = []));
    if (line.length > 0 && line[0] !== client) {
      line.push(client);
      return;
    }
    if (line.length === 0) line.push(client);
    const decision = brain.consume(key, this.spec.cost, t);
    if (!decision.allowed) {
      const at = Math.ceil(t + decision.retryAfterMs);
      if (at < this.spec.endMs) this.queue.push(client, at);
      return;
    }
    line.shift();
    (this.reserved as Uint8Array)[client] = 1;
    this.queue.push(client, t);
    if (line.length > 0) this.queue.push(line[0] as number, t);
  }

  /** Tells the adaptive client what the server answered (a denial's Retry-After, when given, is all it says). */
  private learn(brain: AdaptiveBrain, arrival: Arrival, allowed: boolean, retryAfterMs: number, given: boolean): void {
    const limit: ServerLimit = { announced: false, problems: [] };
    if (!allowed && given && Number.isFinite(retryAfterMs)) {
      limit.retryAfterMs = Math.max(0, retryAfterMs);
      limit.announced = true;
    }
    brain.learn(arrival.key, !allowed, limit, arrival.t, arrival.t);
  }

  /** The backoff before retry `attempt` of `client`'s request; remembers it for the decorrelated variant. */
  private backOff(client: number, backoff: BackoffSpec, attempt: number): number {
    const waits = (this.lastWait ??= new Float64Array(this.spec.clients));
    const wait = backoffWait(backoff, attempt, attempt === 0 ? backoff.baseMs : (waits[client] as number), this.random);
    waits[client] = wait;
    return wait;
  }

  /** A client's next request, first wanted at `t`. */
  private startRequest(client: number, t: number): void {
    this.retries[client] = 0;
    this.wantedAt[client] = t;
    this.schedule(client, t);
  }

  private schedule(client: number, t: number): void {
    if (this.reserved) this.reserved[client] = 0;
    if (t < this.spec.endMs) this.queue.push(client, t);
  }

  /**
   * Turns the wants at the head of the queue into sends: each client waits for its slot in
   * the adaptive client (`client: adaptive`) or the client-side throttle (wants are popped in time order, so slots go first come first
   * served) and is queued again at that time, holding it. A cost that never fits ends the
   * request, as a 429 with no possible retry would.
   */
  private reserveAhead(): void {
    const reserved = this.reserved as Uint8Array;
    for (let client = this.queue.peek(); client !== undefined && reserved[client] === 0; client = this.queue.peek()) {
      const t = this.queue.peekValue() as number;
      this.queue.pop();
      if (this.adaptive) {
        this.askAdaptive(this.adaptive, client, t);
        continue;
      }
      const at = (this.throttle as ClientThrottle).reserve(this.keyOf[client] as string, this.spec.cost, t);
      if (at === Infinity) {
        this.startRequest(client, t + this.spec.thinkMs);
        continue;
      }
      reserved[client] = 1;
      if (at < this.spec.endMs) this.queue.push(client, at);
    }
  }
}
