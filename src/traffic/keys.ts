import type { KeySpec } from '../scenario/scenario.js';
import type { Random } from './random.js';

/** Key names are built once and reused while there are at most this many keys. */
const NAME_CACHE_LIMIT = 1 << 20;

/**
 * Picks the key of each request of a source, per its {@link KeySpec}. Zipf picks use a
 * cumulative weight table (8 B per key) and a binary search: O(log keys) per pick.
 */
export class KeyPicker {
  private turn = 0;
  private readonly names: (string | undefined)[] | undefined;
  private readonly cumulative: Float64Array | undefined;

  constructor(
    private readonly spec: KeySpec,
    private readonly random: Random,
  ) {
    this.names = spec.count <= NAME_CACHE_LIMIT ? new Array<string | undefined>(spec.count) : undefined;
    this.cumulative = spec.pick === 'zipf' && spec.count > 1 ? zipfTable(spec.count, spec.exponent) : undefined;
  }

  /** The key of the next request. */
  next(): string {
    return this.name(this.index());
  }

  /** The name of key number `i` (0-based). */
  name(i: number): string {
    if (this.spec.count === 1) return this.spec.prefix;
    const cached = this.names?.[i];
    if (cached !== undefined) return cached;
    const name = `${this.spec.prefix}${i}`;
    if (this.names) this.names[i] = name;
    return name;
  }

  private index(): number {
    const count = this.spec.count;
    if (count === 1) return 0;
    if (this.spec.pick === 'round-robin') {
      const i = this.turn;
      this.turn = i + 1 === count ? 0 : i + 1;
      return i;
    }
    if (!this.cumulative) return this.random.below(count);
    return firstAbove(this.cumulative, this.random.uniform() * (this.cumulative[count - 1] as number));
  }
}

/** Running sums of 1 / (i + 1)^s: key i is picked with probability proportional to its weight. */
function zipfTable(count: number, exponent: number): Float64Array {
  const table = new Float64Array(count);
  let sum = 0;
  for (let i = 0; i < count; i++) {
    sum += 1 / Math.pow(i + 1, exponent);
    table[i] = sum;
  }
  return table;
}

/** The first index whose running sum exceeds `target` (binary search). */
function firstAbove(table: Float64Array, target: number): number {
  let low = 0;
  let high = table.length - 1;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((table[mid] as number) > target) high = mid;
    else low = mid + 1;
  }
  return low;
}
