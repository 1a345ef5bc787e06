import { ALLOC, HEADER, LANE_WORDS, ROW_CHUNK, type Layout } from './layout.js';
import type { Locking } from './locking.js';

/**
 * Hands out the shared table's rows so that one thread's keys do not share cache lines
 * with another's. A row's state (its time and the meter's columns) is written at every
 * decision; rows handed out from one shared pool in turn to two threads inserting at once
 * put both threads' keys in the same 64-byte lines, which the two cores then pass back and
 * forth at every call (false sharing).
 *
 * Rows come in chunks of {@link ROW_CHUNK} (16) consecutive rows; every column starts on a
 * 64-byte boundary, so a chunk's entries fill whole lines of every column (16 x 4 B is one
 * line, 16 x 8 B two) and no line holds rows of two chunks. Each attached limiter claims a
 * lane (one of at most ROW_LANES, a line of shared words of its own) naming its current
 * chunk, and takes its new keys' rows from that chunk; a chunk whose rows are all taken is
 * replaced by the next unclaimed one. So until the chunks run out, two threads' keys never
 * share a line.
 *
 * No row is lost to a chunk claimed by a thread that inserts no more (or died): the rows a
 * chunk still has are counted in the chunk's fill word, and every chunk being filled is
 * named by a lane, so another limiter that finds nothing else takes rows from the lanes'
 * chunks (a bounded scan, one word per lane). Rows freed by eviction go onto the shared
 * free-row stack, taken before such borrowing. A limiter that finds no lane free (more
 * limiters than lanes) takes a fresh chunk and puts its rows on the free stack.
 *
 * Concurrency: fill words and the chunk cursor move by `Atomics.add` (a row is handed out
 * once: the add's old value is its index); the stack is under the row-stack lock.
 */
export class RowAllocator {
  /** This limiter's lane, once claimed; -1 before the first insert, -2 when none was free. */
  private lane = -1;
  private readonly chunks: number;
  private readonly rows: number;
  private readonly lanes: number;

  constructor(
    private readonly view: Layout,
    private readonly locks: Locking,
  ) {
    this.rows = view.freeRows.length;
    this.chunks = view.chunkFill.length;
    this.lanes = view.alloc.length / LANE_WORDS - 1;
  }

  /** Rows holding live keys. */
  get live(): number {
    return Atomics.load(this.view.alloc, ALLOC.live);
  }

  /** A row for a new key, or -1 when every row is in use. */
  take(): number {
    const row = this.takeInOrder();
    if (row >= 0) Atomics.add(this.view.alloc, ALLOC.live, 1);
    return row;
  }

  /** Gives back the row of a key that was dropped. */
  free(row: number): void {
    Atomics.sub(this.view.alloc, ALLOC.live, 1);
    this.push(row);
  }

  private takeInOrder(): number {
    const own = this.fromOwnLane();
    if (own >= 0) return own;
    const freed = this.pop();
    return freed >= 0 ? freed : this.borrow();
  }

  /** From this limiter's current chunk, moving on to the next unclaimed chunk when it is used up. */
  private fromOwnLane(): number {
    if (this.lane === -1) this.lane = this.claimLane();
    if (this.lane < 0) return this.spillChunk();
    const word = this.laneWord(this.lane);
    for (;;) {
      const row = this.fromChunk(Atomics.load(this.view.alloc, word) - 1);
      if (row >= 0) return row;
      const next = this.nextChunk();
      if (next < 0) return -1;
      Atomics.store(this.view.alloc, word, next + 1);
    }
  }

  /** Without a lane: a fresh chunk's rows onto the free stack (then taken from there), so none is held privately. */
  private spillChunk(): number {
    const chunk = this.nextChunk();
    if (chunk < 0) return -1;
    for (let row = this.fromChunk(chunk); row >= 0; row = this.fromChunk(chunk)) this.push(row);
    return -1;
  }

  /** The next row of `chunk` not yet handed out, or -1 (also for no chunk, -1). */
  private fromChunk(chunk: number): number {
    if (chunk < 0) return -1;
    const fill = this.view.chunkFill;
    const size = Math.min(ROW_CHUNK, this.rows - chunk * ROW_CHUNK);
    // Checked before the add: a full chunk's word is never pushed past its size by more than
    // the threads racing on it, so it cannot wrap however often it is asked.
    if (Atomics.load(fill, chunk) >= size) return -1;
    const index = Atomics.add(fill, chunk, 1);
    return index < size ? chunk * ROW_CHUNK + index : -1;
  }

  /** The next chunk no one has claimed, or -1 when all are. */
  private nextChunk(): number {
    if (Atomics.load(this.view.alloc, ALLOC.nextChunk) >= this.chunks) return -1;
    const chunk = Atomics.add(this.view.alloc, ALLOC.nextChunk, 1);
    return chunk < this.chunks ? chunk : -1;
  }

  /** Rows still unhanded in the chunks other lanes are filling. */
  private borrow(): number {
    for (let lane = 0; lane < this.lanes; lane++) {
      const row = this.fromChunk(Atomics.load(this.view.alloc, this.laneWord(lane)) - 1);
      if (row >= 0) return row;
    }
    return -1;
  }

  private claimLane(): number {
    for (let lane = 0; lane < this.lanes; lane++) {
      if (Atomics.compareExchange(this.view.alloc, this.laneWord(lane) + 1, 0, 1) === 0) return lane;
    }
    return -2;
  }

  /** The word naming lane `lane`'s current chunk (chunk + 1; 0 for none); its owner mark follows it. */
  private laneWord(lane: number): number {
    return (lane + 1) * LANE_WORDS;
  }

  private pop(): number {
    this.locks.freeStack();
    const free = this.view.header[HEADER.freeRows] as number;
    const row = free > 0 ? (this.view.freeRows[free - 1] as number) : -1;
    if (free > 0) this.view.header[HEADER.freeRows] = free - 1;
    this.locks.releaseFreeStack();
    return row;
  }

  private push(row: number): void {
    this.locks.freeStack();
    const free = this.view.header[HEADER.freeRows] as number;
    this.view.freeRows[free] = row;
    this.view.header[HEADER.freeRows] = free + 1;
    this.locks.releaseFreeStack();
  }
}
