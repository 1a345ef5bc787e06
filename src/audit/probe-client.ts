import { Agent, request, type ClientRequest, type IncomingHttpHeaders } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { MAX_TIMER_MS } from '../core/clock.js';
import type { AuditStop } from './audit-report.js';
import type { Identity } from './identities.js';

/** One request the audit sent and what came back. Times are wall ms. */
export interface ProbeShot {
  /** The probe that sent it (`discovery`, `recovery`, ...). */
  probe: string;
  identity: Identity;
  path: string;
  /** Sent this long after the audit's start. */
  sentMs: number;
  /** Sent at this epoch time (to test a limiter's alignment to epoch multiples). */
  epochMs: number;
  /** From sending to the end of the response (or the error). */
  latencyMs: number;
  /** The HTTP status, or undefined when no response came (see `error`). */
  status: number | undefined;
  /** Why no response came: `ECONNREFUSED`, `timeout`, ... */
  error: string | undefined;
  /** The rate-limit header fields received (and `location`), by lower-case name. */
  headers: Record<string, string>;
  /** The start of a response's body that is not 2xx (at most {@link BODY_CHARS} characters). */
  body: string | undefined;
}

/** Characters of a non-2xx body kept (a denial's body is shown in the report). */
const BODY_CHARS = 200;

/**
 * The header fields kept: those a limiter announces its state in (`Retry-After`,
 * `X-RateLimit-*`, the IETF drafts), and `Location` (a redirect is reported, not followed).
 */
const KEPT_HEADER = /^(retry-after|x-ratelimit-.*|x-rate-limit-.*|ratelimit(-.*)?|location)$/;

/** The audit stopped sending: a bound was reached or it was interrupted. */
export class AuditStopped extends Error {
  constructor(readonly reason: Exclude<AuditStop, 'done'>) {
    super(`audit stopped: ${reason}`);
  }
}

/** Options of {@link ProbeClient}. */
export interface ProbeClientOptions {
  /** The origin and default path. */
  url: URL;
  keyHeader: string | undefined;
  /** Most requests in flight from one source address (sockets per address). */
  inFlight: number;
  /** Most requests sent in all; the next throws {@link AuditStopped}. */
  maxRequests: number;
  /** Nothing is sent later than this after the start; requests in flight then are cut off. */
  maxTimeMs: number;
  /** A request without its whole response this long after it left is cut off (`timeout`). */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Told of each response (progress). */
  onShot?: (shot: ProbeShot) => void;
}

/**
 * Sends the audit's requests and keeps every shot. Each source address gets its own
 * kept-alive connections, so identities never share a socket. Once a bound is reached (or
 * the signal aborts) every wait ends, the requests in flight are cut off, and each later
 * call throws {@link AuditStopped}: a probe never outlives the audit's bounds.
 */
export class ProbeClient {
  readonly shots: ProbeShot[] = [];
  private readonly agents = new Map<string, Agent>();
  private readonly inFlightRequests = new Set<ClientRequest>();
  private readonly halt = new AbortController();
  private haltedBy: Exclude<AuditStop, 'done'> | undefined;
  private readonly startPerf = performance.now();
  /** The wall clock minus the monotonic one (see {@link wallClockOffset}). */
  private readonly wallOffsetMs = wallClockOffset();
  private readonly deadline: NodeJS.Timeout | undefined;
  private readonly unwatch: () => void;

  constructor(private readonly options: ProbeClientOptions) {
    this.deadline =
      options.maxTimeMs > MAX_TIMER_MS ? undefined : setTimeout(() => this.stop('max-time'), options.maxTimeMs);
    this.unwatch = this.watch(options.signal);
  }

  /** Wall ms since the audit started. */
  now(): number {
    return performance.now() - this.startPerf;
  }

  /** Epoch ms now (the wall clock an endpoint's windows align to), with sub-millisecond precision. */
  epochNow(): number {
    return this.wallOffsetMs + performance.now();
  }

  /** Requests sent so far. */
  get requests(): number {
    return this.shots.length;
  }

  /** Requests still allowed by `maxRequests`. */
  get requestsLeft(): number {
    return this.options.maxRequests - this.shots.length;
  }

  /** Wall ms left of `maxTimeMs`. */
  get timeLeftMs(): number {
    return this.options.maxTimeMs - this.now();
  }

  /** Why the audit stopped, once it has. */
  get stoppedBy(): Exclude<AuditStop, 'done'> | undefined {
    return this.haltedBy;
  }

  /** Throws {@link AuditStopped} once a bound was reached or the audit was interrupted. */
  check(): void {
    if (this.haltedBy !== undefined) throw new AuditStopped(this.haltedBy);
  }

  /** Sleeps until `ms` after the start (at once when past); throws {@link AuditStopped} if the audit stops first. */
  async sleepUntil(ms: number): Promise<void> {
    this.check();
    const wait = ms - this.now();
    if (ms > this.options.maxTimeMs) {
      await this.sleepUntil(this.options.maxTimeMs);
      this.stop('max-time');
      this.check();
    }
    if (wait <= 0) return;
    try {
      await sleep(wait, undefined, { signal: this.halt.signal });
    } catch {
      this.check();
    }
  }

  /** Sleeps `ms` from now (see {@link sleepUntil}). */
  async sleep(ms: number): Promise<void> {
    await this.sleepUntil(this.now() + ms);
  }

  /**
   * Sends one GET for `identity` to `path` (default: the URL's own) and resolves with its
   * shot once the response (or an error) is complete; an endpoint's failure is recorded in
   * the shot, never thrown. Throws {@link AuditStopped} when no request may be sent, or
   * when the audit stopped while this one was in flight.
   */
  async send(probe: string, identity: Identity, path?: string): Promise<ProbeShot> {
    this.check();
    if (this.shots.length >= this.options.maxRequests) this.stop('max-requests');
    this.check();
    const target = path === undefined ? this.options.url : new URL(path, this.options.url);
    const shot: ProbeShot = {
      probe,
      identity,
      path: target.pathname + target.search,
      sentMs: this.now(),
      epochMs: this.epochNow(),
      latencyMs: 0,
      status: undefined,
      error: undefined,
      headers: {},
      body: undefined,
    };
    this.shots.push(shot);
    await this.exchange(target, shot);
    this.check();
    this.options.onShot?.(shot);
    return shot;
  }

  /** Sends `count` requests at once for `identity` (all in flight together); resolves with their shots in sending order. */
  async burst(probe: string, identity: Identity, count: number, path?: string): Promise<ProbeShot[]> {
    const sends: Promise<ProbeShot>[] = [];
    for (let i = 0; i < count; i++) sends.push(this.send(probe, identity, path));
    const settled = await Promise.allSettled(sends);
    this.check();
    return settled.map((result) => (result as PromiseFulfilledResult<ProbeShot>).value);
  }

  /** Ends the audit's sending for `reason` (the first reason given stays). */
  stop(reason: Exclude<AuditStop, 'done'>): void {
    if (this.haltedBy !== undefined) return;
    this.haltedBy = reason;
    this.halt.abort();
    for (const req of this.inFlightRequests) req.destroy();
  }

  /** Closes every connection and timer; call once the audit is over. */
  close(): void {
    clearTimeout(this.deadline);
    this.unwatch();
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  private watch(signal: AbortSignal | undefined): () => void {
    if (!signal) return () => undefined;
    const interrupted = () => this.stop('interrupted');
    if (signal.aborted) interrupted();
    signal.addEventListener('abort', interrupted, { once: true });
    return () => signal.removeEventListener('abort', interrupted);
  }

  private agentFor(address: string | undefined): Agent {
    const name = address ?? '';
    let agent = this.agents.get(name);
    if (!agent) {
      agent = new Agent({
        keepAlive: true,
        maxSockets: this.options.inFlight,
        ...(address === undefined ? {} : { localAddress: address }),
      });
      this.agents.set(name, agent);
    }
    return agent;
  }

  /** One request and its whole response, bounded by `timeoutMs`; fills `shot`. */
  private exchange(target: URL, shot: ProbeShot): Promise<void> {
    const { keyHeader, timeoutMs } = this.options;
    const headers: Record<string, string> = {};
    if (keyHeader !== undefined && shot.identity.key !== undefined) headers[keyHeader] = shot.identity.key;
    return new Promise<void>((resolve) => {
      let done = false;
      let cutBy: string | undefined;
      const finish = (error: string | undefined) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        this.inFlightRequests.delete(req);
        const failure = cutBy ?? error;
        if (failure !== undefined) [shot.status, shot.error] = [undefined, failure];
        shot.latencyMs = this.now() - shot.sentMs;
        resolve();
      };
      const req = request(target, { agent: this.agentFor(shot.identity.address), method: 'GET', headers }, (res) => {
        shot.status = res.statusCode;
        shot.headers = rateLimitHeaders(res.headers);
        const keepBody = shot.status === undefined || shot.status < 200 || shot.status >= 300;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (keepBody && body.length < BODY_CHARS) body += chunk;
        });
        res.on('error', (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
        res.on('end', () => {
          if (keepBody) shot.body = body.slice(0, BODY_CHARS);
          finish(undefined);
        });
      });
      const timer =
        timeoutMs > MAX_TIMER_MS
          ? undefined
          : setTimeout(() => {
              cutBy = 'timeout';
              req.destroy();
            }, timeoutMs);
      this.inFlightRequests.add(req);
      req.on('error', (error: NodeJS.ErrnoException) => finish(this.haltedBy ?? error.code ?? error.message));
      req.on('close', () => finish(shot.status === undefined ? (this.haltedBy ?? 'ECONNRESET') : undefined));
      req.end();
    });
  }
}

/** How long {@link wallClockOffset} samples the clocks, ms: over one tick of `Date.now()`. */
const CALIBRATION_MS = 2;

/**
 * `Date.now()` minus `performance.now()`, to the sub-millisecond: the clocks are sampled
 * over a tick of the wall clock, whose whole milliseconds are floored, so the largest
 * difference seen is the closest. `performance.timeOrigin` would not do: the wall clock
 * drifts from it (NTP) over a process's life, by milliseconds, and an endpoint's epoch
 * windows follow the wall clock.
 */
function wallClockOffset(): number {
  const until = performance.now() + CALIBRATION_MS;
  let best = -Infinity;
  for (let now = performance.now(); now < until; now = performance.now()) best = Math.max(best, Date.now() - now);
  return best;
}

/** The rate-limit fields of a response, by lower-case name; a repeated field's values joined by `, `. */
function rateLimitHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || !KEPT_HEADER.test(name)) continue;
    fields[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return fields;
}
