import { oracleAdmits } from './oracle.js';
import { WindowLedger } from './window-ledger.js';

/** Equal spans of scenario time: `count` columns of `widthMs` ms from `fromMs` (ms). */
export interface ColumnGrid {
  fromMs: number;
  widthMs: number;
  count: number;
}

/** What a {@link FocusRecorder} follows: one key, under the policy's limit and window. */
export interface FocusOptions {
  key: string;
  /**
   * The limits (requests per `windowMs` ms), at least one: the exact oracle enforces them all
   * (a composite's, all or nothing), and the chart's columns are charted under each.
   */
  limits: readonly { limit: number; windowMs: number }[];
  /** Chart columns: the trailing window's peak per column. */
  chart?: ColumnGrid;
  /** Strip cells: the key's requests admitted and denied per cell. */
  strip?: ColumnGrid;
}

/** One decider's view of the focus key (a limiter's, or the exact oracle's). */
export interface FocusSeries {
  /**
   * Per chart column: the most units admitted in any trailing window `(t - W, t]` with t
   * in the column, as a ratio of the limit (1.0 is the limit).
   */
  window: number[];
  /**
   * With several limits (a composite's): per limit, in order, the same per column under that
   * limit's window, as a ratio of that limit (the first is `window`). Absent for one limit.
   */
  windows?: number[][];
  /** Per strip cell: requests of the key admitted. */
  admitted: number[];
  /** Per strip cell: requests of the key denied. */
  denied: number[];
  /** Per strip cell: of those admitted, the ones the exact oracle would have denied (always 0 for the oracle). */
  falseAdmits: number[];
  /** Per strip cell: of those denied, the ones the exact oracle would have admitted (always 0 for the oracle). */
  falseDenials: number[];
}

/** What a {@link FocusRecorder} saw: per lane, and for the exact oracle on the same arrivals. */
export interface FocusRecord {
  key: string;
  /** Requests of the key over the whole run. */
  arrivals: number;
  lanes: FocusSeries[];
  oracle: FocusSeries;
}

/**
 * Follows one key through a replay, for the charts and the request strip: the units each
 * limiter (lane) and the exact oracle admitted for that key in the trailing window, as
 * per-column peaks, and per strip cell the requests admitted and denied. Called like the
 * MetricsRecorder (offer, decide per lane, commit) for every arrival; other keys cost a
 * comparison. Memory: the columns and cells, plus the key's entries within one window.
 */
export class FocusRecorder {
  private readonly limits: readonly { limit: number; windowMs: number }[];
  /** One per limit: the key's trailing window under it. */
  private readonly ledgers: WindowLedger[];
  private readonly verdicts: Uint8Array;
  /** Per limit, then per lane (the oracle last): the most units in the trailing window, per column. */
  private readonly peaks: Float64Array[][];
  private readonly counts: CellCounts[];
  private focusId = -1;
  private focused = false;
  private t = 0;
  private cost = 0;
  private arrivals = 0;
  /** The next chart column whose start has not been passed yet. */
  private nextColumn = 0;

  constructor(
    private readonly options: FocusOptions,
    readonly lanes = 1,
  ) {
    if (options.limits.length === 0) throw new RangeError('a focus recorder needs at least one limit');
    this.limits = options.limits;
    this.ledgers = this.limits.map(() => new WindowLedger(lanes + 1));
    for (const ledger of this.ledgers) ledger.slot(options.key);
    this.verdicts = new Uint8Array(lanes + 1);
    const columns = options.chart?.count ?? 0;
    const cells = options.strip?.count ?? 0;
    this.peaks = this.limits.map(() => Array.from({ length: lanes + 1 }, () => new Float64Array(columns)));
    this.counts = Array.from({ length: lanes + 1 }, () => ({
      admitted: new Float64Array(cells),
      denied: new Float64Array(cells),
      falseAdmits: new Float64Array(cells),
      falseDenials: new Float64Array(cells),
    }));
  }

  /** Starts recording an arrival (times in non-decreasing order); only the focus key's are kept. */
  offer(t: number, key: string, cost: number, id?: number): void {
    this.focused = id !== undefined && this.focusId >= 0 ? id === this.focusId : key === this.options.key;
    if (!this.focused) return;
    if (id !== undefined) this.focusId = id;
    this.passColumns(t);
    this.t = t;
    this.cost = cost;
    let exact = true;
    for (let i = 0; i < this.ledgers.length; i++) {
      const ledger = this.ledgers[i] as WindowLedger;
      const limit = this.limits[i] as { limit: number; windowMs: number };
      ledger.expire(t - limit.windowMs);
      exact = oracleAdmits(ledger, 0, cost, limit.limit) && exact;
    }
    this.verdicts[this.lanes] = exact ? 1 : 0;
  }

  /** The decision of the limiter of `lane` on the arrival offered last. */
  decide(lane: number, allowed: boolean): void {
    this.verdicts[lane] = allowed ? 1 : 0;
  }

  /** Counts the arrival offered last, if it was the focus key's. */
  commit(): void {
    if (!this.focused) return;
    const { verdicts, lanes, cost } = this;
    this.arrivals += 1;
    // The oracle's units are kept both as each ledger's oracle column (for its verdicts) and as the last lane (for its series).
    const exact = verdicts[lanes] === 1;
    for (const ledger of this.ledgers) {
      const entry = ledger.append(0, this.t, exact ? cost : 0);
      for (let lane = 0; lane <= lanes; lane++) if (verdicts[lane] === 1) ledger.keep(entry, 0, lane, cost);
    }
    const column = cellOf(this.options.chart, this.t);
    const cell = cellOf(this.options.strip, this.t);
    for (let lane = 0; lane <= lanes; lane++) {
      if (column >= 0) this.raise(lane, column);
      if (cell >= 0) this.countCell(lane, cell, verdicts[lane] === 1, exact);
    }
  }

  /** Counts a request of the key in strip cell `cell`, and whether the lane's verdict differed from the oracle's. */
  private countCell(lane: number, cell: number, allowed: boolean, exact: boolean): void {
    const counts = this.counts[lane] as CellCounts;
    const into = allowed ? counts.admitted : counts.denied;
    into[cell] = (into[cell] as number) + 1;
    if (allowed !== exact) {
      const wrong = allowed ? counts.falseAdmits : counts.falseDenials;
      wrong[cell] = (wrong[cell] as number) + 1;
    }
  }

  /** Everything recorded, once the stream has ended. */
  result(): FocusRecord {
    this.passColumns(Infinity);
    const series = (lane: number): FocusSeries => {
      const counts = this.counts[lane] as CellCounts;
      const windows = this.limits.map((limit, i) =>
        Array.from((this.peaks[i] as Float64Array[])[lane] as Float64Array, (units) => units / limit.limit),
      );
      return {
        window: windows[0] as number[],
        ...(windows.length > 1 ? { windows } : {}),
        admitted: Array.from(counts.admitted),
        denied: Array.from(counts.denied),
        falseAdmits: Array.from(counts.falseAdmits),
        falseDenials: Array.from(counts.falseDenials),
      };
    };
    return {
      key: this.options.key,
      arrivals: this.arrivals,
      lanes: Array.from({ length: this.lanes }, (_, lane) => series(lane)),
      oracle: series(this.lanes),
    };
  }

  /**
   * Takes the window at the start of every column up to `t`: nothing of the key arrived
   * since, so the window there holds what it held after the last arrival, less what expired.
   */
  private passColumns(t: number): void {
    const grid = this.options.chart;
    if (!grid) return;
    for (; this.nextColumn < grid.count; this.nextColumn++) {
      const start = grid.fromMs + this.nextColumn * grid.widthMs;
      if (start > t) return;
      this.ledgers.forEach((ledger, i) => ledger.expire(start - (this.limits[i] as { windowMs: number }).windowMs));
      for (let lane = 0; lane <= this.lanes; lane++) this.raise(lane, this.nextColumn);
    }
  }

  /** Raises `lane`'s peak in `column`, under every limit, to what its window holds now. */
  private raise(lane: number, column: number): void {
    for (let i = 0; i < this.ledgers.length; i++) {
      const peaks = (this.peaks[i] as Float64Array[])[lane] as Float64Array;
      const units = (this.ledgers[i] as WindowLedger).keptSum[lane] as number;
      if (units > (peaks[column] as number)) peaks[column] = units;
    }
  }
}

/** One lane's requests per strip cell. */
interface CellCounts {
  admitted: Float64Array;
  denied: Float64Array;
  falseAdmits: Float64Array;
  falseDenials: Float64Array;
}

/** The index of the column of `grid` holding `t`, or -1 outside it. */
function cellOf(grid: ColumnGrid | undefined, t: number): number {
  if (!grid || t < grid.fromMs) return -1;
  const i = Math.floor((t - grid.fromMs) / grid.widthMs);
  return i < grid.count ? i : -1;
}
