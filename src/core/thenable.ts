/**
 * Whether `value` is a thenable (an object or function with a `then` method): a decision
 * or result that must be awaited. Any other value, `null` and `undefined` included, is not.
 */
export function isThenable<T = unknown>(value: unknown): value is PromiseLike<T> {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return false;
  return typeof (value as { then?: unknown }).then === 'function';
}
