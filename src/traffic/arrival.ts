/** One request of a traffic stream: at time `t` (whole ms), for `key`, taking `cost` units. */
export interface Arrival {
  readonly t: number;
  readonly key: string;
  readonly cost: number;
  /**
   * The key's number in this stream (dense from 0, the same for the same key name), when
   * the source knows it: the metrics then find the key without hashing its name.
   */
  readonly id?: number;
  /** The source's own mark on the arrival (a retry client's id), handed back in `react`. */
  readonly tag?: number;
  /** The source's label (what its requests are), when it has one: metrics count per label. */
  readonly label?: string | undefined;
  /**
   * When the client first wanted to send this request (retry clients: before any 429 or
   * client-side throttle delayed it). Once admitted, `t - since` is how long it waited.
   */
  readonly since?: number;
}

/**
 * A generator of arrivals, pulled lazily in time order (never a list of all of them).
 * A closed-loop source (clients that retry) also hears the decision on each of its
 * arrivals, through `react`, before the stream asks it for anything else.
 */
export interface TrafficSource {
  /** Time of the next arrival (whole ms, never before the previous one), or Infinity when done. */
  peek(): number;
  /** Takes the next arrival; called only while `peek()` is finite. */
  take(): Arrival;
  /**
   * The decision on the arrival just taken: whether it was admitted and, if not, the
   * limiter's Retry-After in ms (Infinity: never; a limiter that gives none is taken to
   * mean the policy's window, with `retryAfterGiven` false, so a client may back off
   * instead).
   */
  react?(arrival: Arrival, allowed: boolean, retryAfterMs: number, retryAfterGiven?: boolean): void;
}
