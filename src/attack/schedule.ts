/** One request to send: at scenario time `t` (ms), for `key`. */
export interface AttackEvent {
  readonly t: number;
  readonly key: string;
}

/**
 * The events to replay, pulled in time order. A closed-loop stream (clients that retry)
 * hears each decision through `react` before it is asked for the next event; the runner
 * then waits for each response before pulling on.
 */
export interface AttackStream {
  next(): AttackEvent | undefined;
  readonly closedLoop?: boolean;
  react?(allowed: boolean, retryAfterMs: number): void;
}

/**
 * The epoch ms to start a replay at so that its phase against `alignMs` is kept: the first
 * instant at or after `nowEpochMs` congruent to `originMs / speed` modulo `alignMs`. Event
 * `t`, sent `(t - originMs) / speed` after the start, then leaves at an epoch time
 * congruent to `t / speed` modulo `alignMs`. A scenario (origin 0) starts on a multiple of
 * `alignMs`; a trace whose first event is at 1,880 ms starts 880 ms past one (at speed 1).
 */
export function alignedStartEpoch(nowEpochMs: number, originMs: number, speed: number, alignMs: number): number {
  const phase = positiveModulo(originMs / speed, alignMs);
  return phase + Math.ceil((nowEpochMs - phase) / alignMs) * alignMs;
}

function positiveModulo(value: number, modulus: number): number {
  return ((value % modulus) + modulus) % modulus;
}

/**
 * The events a stream would send, counted up to `cap`: those less than `durationMs`
 * (scenario time) after the origin (`originMs`, else the first event's time). Undefined
 * for a closed-loop stream, whose events depend on the decisions. Consumes the stream.
 */
export function plannedEvents(
  stream: AttackStream,
  originMs: number | undefined,
  durationMs: number,
  cap: number,
): number | undefined {
  if (stream.closedLoop) return undefined;
  const first = stream.next();
  if (!first || cap < 1) return 0;
  const endMs = (originMs ?? first.t) + durationMs;
  return first.t < endMs ? 1 + countEvents(stream, endMs, cap - 1) : 0;
}

/** Pulls events before `endMs` (scenario time) from `stream`, counting them up to `cap`. */
export function countEvents(stream: AttackStream, endMs: number, cap: number): number {
  let count = 0;
  while (count < cap) {
    const event = stream.next();
    if (!event || event.t >= endMs) break;
    count += 1;
  }
  return count;
}
