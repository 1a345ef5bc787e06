import { parse as parseCsv } from 'csv-parse/sync';
import { MAX_TIME_MS } from '../../core/duration.js';

/** One parsed trace line, or why it is not one. */
type ParsedLine = { t: number; key: string; cost: number } | { error: string };

/** A trace format: how to recognise its first line and parse the others. */
export interface TraceFormat {
  readonly name: string;
  /** Whether the first line is a header to skip. */
  readonly header: boolean;
  parse(line: string): ParsedLine;
}

const CSV_HEADER = /^\s*time_ms\s*,\s*key\s*(,\s*cost\s*)?$/;

/** CSV with a header `time_ms,key[,cost]` (RFC 4180 quoting allowed; cost defaults to 1). */
const csvFormat: TraceFormat = {
  name: 'CSV',
  header: true,
  parse(line) {
    if (line.includes('"')) {
      const fields = quotedFields(line);
      if (fields === undefined) return { error: 'malformed CSV quoting' };
      if (fields.length < 2 || fields.length > 3) return { error: fieldCount(fields.length) };
      return checked(
        number(fields[0] as string),
        fields[1] as string,
        fields.length === 3 ? number(fields[2] as string) : 1,
        'time_ms',
      );
    }
    // The common case without quotes, by index: no array, no trimmed copies.
    const first = line.indexOf(',');
    if (first < 0) return { error: fieldCount(1) };
    const second = line.indexOf(',', first + 1);
    if (second >= 0 && line.indexOf(',', second + 1) >= 0) return { error: fieldCount(line.split(',').length) };
    const key = second < 0 ? line.slice(first + 1) : line.slice(first + 1, second);
    const cost = second < 0 ? 1 : number(line.slice(second + 1));
    return checked(number(line.slice(0, first)), key, cost, 'time_ms');
  },
};

function fieldCount(count: number): string {
  return `expected time_ms,key[,cost], got ${count} field${count === 1 ? '' : 's'}`;
}

/** A number from CSV text; blank text is not 0. */
function number(text: string): number {
  return text.trim() === '' ? NaN : Number(text);
}

/** JSON lines `{"t": ms, "key": "...", "cost": n}` (cost optional, default 1). */
const jsonLinesFormat: TraceFormat = {
  name: 'JSON lines',
  header: false,
  parse(line) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return { error: 'not valid JSON' };
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return { error: 'expected an object {"t", "key", "cost"}' };
    const { t, key, cost } = value as { t?: unknown; key?: unknown; cost?: unknown };
    if (typeof key !== 'string' && typeof key !== 'number') return { error: 'key: expected a string' };
    return checked(
      typeof t === 'number' ? t : NaN,
      String(key),
      cost === undefined ? 1 : typeof cost === 'number' ? cost : NaN,
      't',
    );
  },
};

// host ident user [date] "request" status bytes ["referer" "agent"]
const CLF =
  /^(\S+) \S+ \S+ \[(\d{2})\/([A-Za-z]{3})\/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})\] "(?:[^"\\]|\\.)*" \d{3} (?:\d+|-)/;
const MONTHS: Record<string, number> = {
  Jan: 0,
  Feb: 1,
  Mar: 2,
  Apr: 3,
  May: 4,
  Jun: 5,
  Jul: 6,
  Aug: 7,
  Sep: 8,
  Oct: 9,
  Nov: 10,
  Dec: 11,
};

/** Common or Combined Log Format (nginx, Apache): keyed by client address, cost 1, second resolution. */
const accessLogFormat: TraceFormat = {
  name: 'Common/Combined Log Format',
  header: false,
  parse(line) {
    const m = CLF.exec(line);
    if (!m)
      return {
        error:
          'not a Common/Combined Log Format line (host ident user [dd/Mon/yyyy:hh:mm:ss +zzzz] "request" status bytes)',
      };
    const month = MONTHS[m[3] as string];
    if (month === undefined) return { error: `unknown month ${JSON.stringify(m[3])}` };
    const sign = m[8] === '-' ? -1 : 1;
    const offsetMs = sign * (Number(m[9]) * 60 + Number(m[10])) * 60_000;
    const t = Date.UTC(Number(m[4]), month, Number(m[2]), Number(m[5]), Number(m[6]), Number(m[7])) - offsetMs;
    return { t, key: m[1] as string, cost: 1 };
  },
};

/**
 * The format of a trace, from its first line: a CSV header, a JSON object, or an access
 * log line. Undefined when it is none of them.
 */
export function detectFormat(firstLine: string): TraceFormat | undefined {
  if (CSV_HEADER.test(firstLine)) return csvFormat;
  if (firstLine.trimStart().startsWith('{')) return jsonLinesFormat;
  if (CLF.test(firstLine)) return accessLogFormat;
  return undefined;
}

/** Times: finite, from 0 to MAX_TIME_MS, floored to whole ms; costs: whole numbers >= 1; keys: non-empty. */
function checked(t: number, key: string, cost: number, timeField: string): ParsedLine {
  if (!Number.isFinite(t) || t < 0) return { error: `${timeField}: expected a time in ms >= 0` };
  if (t > MAX_TIME_MS)
    return {
      error: `${timeField}: time ${t} is beyond the largest supported time, ${MAX_TIME_MS} ms (100,000,000 days, the range of a JavaScript Date)`,
    };
  if (key === '') return { error: 'key: empty' };
  if (!Number.isSafeInteger(cost) || cost < 1) return { error: 'cost: expected a whole number >= 1' };
  return { t: Math.floor(t), key, cost };
}

function quotedFields(line: string): string[] | undefined {
  try {
    const rows = parseCsv(line, { relax_column_count: true }) as string[][];
    return rows.length === 1 ? rows[0] : undefined;
  } catch {
    return undefined;
  }
}
