import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Arrival } from '../../src/traffic/arrival.js';
import { TraceSource } from '../../src/traffic/trace/trace-source.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/traces');

function read(name: string, skipBadLines = false): { arrivals: Arrival[]; source: TraceSource } {
  const source = new TraceSource(join(FIXTURES, name), { skipBadLines, label: name });
  const arrivals: Arrival[] = [];
  while (source.peek() !== Infinity) arrivals.push(source.take());
  return { arrivals, source };
}

describe('trace readers', () => {
  it('CSV: header time_ms,key[,cost], quoted keys, default cost 1, blank lines ignored, keys numbered', () => {
    const { arrivals, source } = read('good.csv');
    expect(arrivals).toEqual([
      { t: 0, key: 'alice', cost: 1, id: 0 },
      { t: 0, key: 'bob', cost: 2, id: 1 },
      { t: 10, key: 'carol, inc', cost: 1, id: 2 },
      { t: 20, key: 'alice', cost: 1, id: 0 },
    ]);
    expect(source.stats).toMatchObject({ format: 'CSV', arrivals: 4, skipped: 0 });
  });

  it('JSON lines: {"t","key","cost"}, fractional ms floored', () => {
    expect(read('good.jsonl').arrivals).toEqual([
      { t: 0, key: 'alice', cost: 1, id: 0 },
      { t: 5, key: 'bob', cost: 1, id: 1 },
      { t: 5, key: 'alice', cost: 3, id: 0 },
    ]);
  });

  it('Common/Combined Log Format: keyed by client address, time with its zone', () => {
    const t0 = Date.UTC(2000, 9, 10, 20, 55, 36);
    expect(read('access.log').arrivals).toEqual([
      { t: t0, key: '192.0.2.1', cost: 1, id: 0 },
      { t: t0, key: '192.0.2.1', cost: 1, id: 0 },
      { t: t0 + 1000, key: '198.51.100.7', cost: 1, id: 1 },
    ]);
  });

  it.each([
    ['bad-time.csv', 'bad-time.csv:4: time_ms: expected a time in ms >= 0 (or pass --skip-bad-lines)'],
    [
      'unsorted.csv',
      "unsorted.csv:4: time 5 ms comes before the previous line's 10 ms: a trace must be sorted by time (or pass --skip-bad-lines)",
    ],
    ['bad.jsonl', 'bad.jsonl:2: not valid JSON (or pass --skip-bad-lines)'],
    [
      'unknown.txt',
      'unknown.txt:1: unrecognised trace format: expected a CSV header time_ms,key[,cost], a JSON line {"t": ms, "key": "...", "cost": n}, or a Common/Combined Log Format line',
    ],
    ['missing.csv', 'missing.csv: no such file'],
  ])('%s fails with the file and line: %s', (name, message) => {
    expect(() => read(name)).toThrow(message);
  });

  it('--skip-bad-lines skips malformed and out-of-order lines and counts them', () => {
    const unsorted = read('unsorted.csv', true);
    expect(unsorted.arrivals.map((a) => a.key)).toEqual(['alice', 'bob', 'dave']);
    expect(unsorted.source.stats).toMatchObject({
      skipped: 1,
      firstSkipped: expect.stringMatching(/^unsorted\.csv:4: time 5 ms/),
    });
    const jsonl = read('bad.jsonl', true);
    expect(jsonl.arrivals.map((a) => a.t)).toEqual([0, 3]);
    expect(jsonl.source.stats.skipped).toBe(2);
  });

  it('reads lines that straddle its 1 MiB chunks intact', () => {
    const path = join(tmpdir(), `ratelab-trace-${process.pid}.csv`);
    const lines = ['time_ms,key'];
    for (let i = 0; i < 120_000; i++) lines.push(`${i},key-with-a-longish-name-${i % 97}`);
    writeFileSync(path, lines.join('\r\n'));
    const source = new TraceSource(path);
    let count = 0;
    let last: Arrival | undefined;
    while (source.peek() !== Infinity) {
      last = source.take();
      expect(last.key).toBe(`key-with-a-longish-name-${count % 97}`);
      count += 1;
    }
    expect(count).toBe(120_000);
    expect(last?.t).toBe(119_999);
  });
});
