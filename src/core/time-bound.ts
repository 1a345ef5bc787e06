/**
 * `work`'s outcome, or a rejection with `onTimeout()` after `timeoutMs`, whichever comes
 * first. The timer is cleared as soon as `work` settles, so it never holds a finished
 * process open; a late outcome is dropped (a late rejection is swallowed, never unhandled).
 */
export function timeBound<T>(work: PromiseLike<T>, timeoutMs: number, onTimeout: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(onTimeout()), timeoutMs);
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
