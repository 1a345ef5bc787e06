/** Thrown (as a rejection) when a Redis call did not answer within its time bound. */
export class RedisTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`Redis did not answer within ${timeoutMs} ms`);
    this.name = 'RedisTimeoutError';
  }
}

/**
 * `work`, or a rejection after `timeoutMs`, whichever comes first. The bound is ours, not
 * the client's: a client built with default options queues commands while disconnected
 * and retries for seconds (envoy ratelimit #462), and the limiter must answer regardless.
 * A late answer is dropped (its rejection is swallowed, never unhandled).
 */
export function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new RedisTimeoutError(timeoutMs)), timeoutMs);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
