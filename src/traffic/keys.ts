import type { KeySpec } from '../scenario/scenario.js';
import { AliasTable } from './alias-table.js';
import { KeyIds } from './key-ids.js';
import type { Random } from './random.js';

/** Key names are built once and reused while there are at most this many keys. */
const NAME_CACHE_LIMIT = 1 << 20;

/**
 * Picks the key of each request of a source, per its {@link KeySpec}. Zipf picks use an
 * alias table (12 B per key): O(1) per pick.
 */
export class KeyPicker {
  /** The stream-wide number of the key `next()` returned last (see {@link KeyIds}). */
  lastId = -1;
  private turn = 0;
  private readonly names: (string | undefined)[] | undefined;
  private readonly numbers: Int32Array | undefined;
  private readonly zipf: AliasTable | undefined;

  constructor(
    private readonly spec: KeySpec,
    private readonly random: Random,
    private readonly ids: KeyIds = new KeyIds(),
  ) {
    const cached = spec.count <= NAME_CACHE_LIMIT;
    this.names = cached ? new Array<string | undefined>(spec.count) : undefined;
    this.numbers = cached ? new Int32Array(spec.count).fill(-1) : undefined;
    this.zipf = spec.pick === 'zipf' && spec.count > 1 ? zipfTable(spec.count, spec.exponent) : undefined;
  }

  /** The key of the next request; its number is then in `lastId`. */
  next(): string {
    const i = this.nextIndex();
    const name = this.name(i);
    const known = this.numbers?.[i] ?? -1;
    if (known >= 0) {
      this.lastId = known;
    } else {
      this.lastId = this.ids.idOf(name);
      if (this.numbers) this.numbers[i] = this.lastId;
    }
    return name;
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

  /** The number (0-based) of the next request's key, without building its name. */
  nextIndex(): number {
    const count = this.spec.count;
    if (count === 1) return 0;
    if (this.spec.pick === 'round-robin') {
      const i = this.turn;
      this.turn = i + 1 === count ? 0 : i + 1;
      return i;
    }
    if (!this.zipf) return this.random.below(count);
    return this.zipf.pick(this.random.uniform());
  }
}

/** Built Zipf tables by `count/exponent`: each stream of a scenario (one per algorithm) reuses them. */
const ZIPF_TABLES = new Map<string, AliasTable>();
const ZIPF_TABLES_KEPT = 8;

/** The alias table of Zipf popularity over `count` keys: key i has weight 1 / (i + 1)^s (Breslau et al., 1999). */
function zipfTable(count: number, exponent: number): AliasTable {
  const id = `${count}/${exponent}`;
  let table = ZIPF_TABLES.get(id);
  if (table === undefined) {
    const weights = new Float64Array(count);
    for (let i = 0; i < count; i++) weights[i] = 1 / Math.pow(i + 1, exponent);
    table = new AliasTable(weights);
    if (ZIPF_TABLES.size >= ZIPF_TABLES_KEPT) ZIPF_TABLES.delete(ZIPF_TABLES.keys().next().value as string);
    ZIPF_TABLES.set(id, table);
  }
  return table;
}
