import { statSync } from 'node:fs';
import { fileReadError } from '../../config/file-read-error.js';
import { RatelabError } from '../../core/errors.js';
import type { Arrival, TrafficSource } from '../arrival.js';
import { detectFormat, type TraceFormat } from './formats.js';
import { LineReader } from './line-reader.js';

/** Options of {@link TraceSource}. */
export interface TraceOptions {
  /** Skip malformed and out-of-order lines (counted in `stats.skipped`) instead of failing. */
  skipBadLines?: boolean;
  /** How the file is named in messages (default: its path). */
  label?: string;
  /**
   * Why a key cannot be used (undefined when it can): a line with such a key is bad, as a
   * malformed one is (`attack` refuses keys a header cannot carry).
   */
  checkKey?: (key: string) => string | undefined;
}

/** What a trace held, known once it has been read to the end. */
export interface TraceStats {
  format: string;
  /** Arrivals read. */
  arrivals: number;
  /** Lines skipped with `skipBadLines`. */
  skipped: number;
  /** The first skipped line's number and reason, for the message. */
  firstSkipped: string | undefined;
}

/**
 * A recorded trace as a traffic source, read lazily line by line (bounded memory for any
 * size). The format is detected from the first line: CSV with a `time_ms,key[,cost]`
 * header, JSON lines `{"t","key","cost"}`, or a Common/Combined Log Format access log
 * (keyed by client address). Blank lines are ignored. Times must not decrease.
 *
 * Throws `FILE_NOT_FOUND` / `FILE_UNREADABLE`, or `INVALID_TRACE` as `file:line: why`
 * on the first bad line (unless `skipBadLines`).
 */
export class TraceSource implements TrafficSource {
  readonly stats: TraceStats;
  private readonly reader: LineReader;
  private readonly format: TraceFormat;
  private readonly label: string;
  private readonly skipBad: boolean;
  private readonly checkKey: ((key: string) => string | undefined) | undefined;
  private pending: Arrival | undefined;
  private lastT = -Infinity;
  /** Key -> its number; `names` holds one copy of each key (a key sliced from a line would pin the whole chunk it was read in). */
  private readonly ids = new Map<string, number>();
  private readonly names: string[] = [];

  constructor(path: string, options: TraceOptions = {}) {
    this.label = options.label ?? path;
    this.skipBad = options.skipBadLines ?? false;
    this.checkKey = options.checkKey;
    this.reader = openReader(path, this.label);
    let first = this.reader.next();
    while (first !== undefined && first.trim() === '') first = this.reader.next();
    if (first === undefined) throw this.invalid(`${this.label}: the trace is empty`);
    const format = detectFormat(first);
    if (!format) {
      this.reader.close();
      throw this.invalid(
        `${this.label}:${this.reader.lineNumber}: unrecognised trace format: expected a CSV header time_ms,key[,cost], a JSON line {"t": ms, "key": "...", "cost": n}, or a Common/Combined Log Format line`,
      );
    }
    this.format = format;
    this.stats = { format: format.name, arrivals: 0, skipped: 0, firstSkipped: undefined };
    this.pending = format.header ? this.read() : this.parse(first);
  }

  peek(): number {
    return this.pending === undefined ? Infinity : this.pending.t;
  }

  take(): Arrival {
    const arrival = this.pending as Arrival;
    this.stats.arrivals += 1;
    this.pending = this.read();
    return arrival;
  }

  private read(): Arrival | undefined {
    for (let line = this.reader.next(); line !== undefined; line = this.reader.next()) {
      if (line.trim() === '') continue;
      const arrival = this.parse(line);
      if (arrival) return arrival;
    }
    return undefined;
  }

  /** The arrival of a line, or undefined when the line was skipped. */
  private parse(line: string): Arrival | undefined {
    const parsed = this.format.parse(line);
    if ('error' in parsed) return this.bad(parsed.error);
    if (parsed.t < this.lastT)
      return this.bad(
        `time ${parsed.t} ms comes before the previous line's ${this.lastT} ms: a trace must be sorted by time`,
      );
    const keyProblem = this.checkKey?.(parsed.key);
    if (keyProblem !== undefined) return this.bad(keyProblem);
    this.lastT = parsed.t;
    const id = this.intern(parsed.key);
    return { t: parsed.t, key: this.names[id] as string, cost: parsed.cost, id };
  }

  private intern(key: string): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      const copy = Buffer.from(key, 'utf8').toString('utf8');
      id = this.names.length;
      this.names.push(copy);
      this.ids.set(copy, id);
    }
    return id;
  }

  private bad(why: string): undefined {
    const where = `${this.label}:${this.reader.lineNumber}`;
    if (!this.skipBad) {
      this.reader.close();
      throw this.invalid(`${where}: ${why} (or pass --skip-bad-lines)`);
    }
    this.stats.skipped += 1;
    this.stats.firstSkipped ??= `${where}: ${why}`;
    return undefined;
  }

  private invalid(message: string): RatelabError {
    return new RatelabError('INVALID_TRACE', message, { field: this.label });
  }
}

function openReader(path: string, label: string): LineReader {
  try {
    if (statSync(path).isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    return new LineReader(path);
  } catch (error) {
    throw fileReadError(error, label);
  }
}
