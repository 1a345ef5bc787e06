// The sliding log's memory rule: its state grows with the limit, so the policy check caps the
// limit by it and the memory and shared limiters size their rings by it.

/** The sliding log keeps one timestamp per admitted unit: beyond this limit a full key's ring would take over 8 MiB. */
export const SLIDING_LOG_MAX_LIMIT = 1 << 20;

/** Bytes of the sliding log's columns per key, timestamps aside: a 4-byte ring address, head and count, and a 1-byte size class. */
export const SLIDING_LOG_COLUMN_BYTES = 13;

/**
 * The most bytes of state the sliding log keeps for one key under `limit`: an 8-byte time
 * per unit of the limit (a full ring) and its columns. A key takes 8 B per timestamp its
 * ring has room for, which follows the units it admitted in the window (see SlidingLog).
 */
export function slidingLogBytes(limit: number): number {
  return 8 * limit + SLIDING_LOG_COLUMN_BYTES;
}
