import { describe, expect, it } from 'vitest';
import { decisionsText, parseSamples } from '../../src/report/data/prometheus-text.js';

describe('the Prometheus text format', () => {
  it('reads back what it writes, label values escaped (backslash, quote, line feed)', () => {
    const counts = [
      { limiter: 'my "lab"', tier: 'a\\b', outcome: 'allowed', value: 3 },
      { limiter: 'two\nlines', tier: 't', outcome: 'denied', value: 0 },
    ];
    const text = decisionsText(counts);
    expect(text).toContain('ratelab_decisions_total{limiter="my \\"lab\\"",tier="a\\\\b",outcome="allowed"} 3\n');
    expect(parseSamples(text)).toEqual(
      counts.map(({ value, ...labels }) => ({ name: 'ratelab_decisions_total', labels, value })),
    );
  });

  it.each<[string, string, { name: string; labels: Record<string, string>; value: number }]>([
    ['no labels', 'up 1', { name: 'up', labels: {}, value: 1 }],
    ['a timestamp', 'x{a="1"} 2.5 1700000000000', { name: 'x', labels: { a: '1' }, value: 2.5 }],
    ['a trailing comma and spaces', 'x{ a="1", b="2", } 7', { name: 'x', labels: { a: '1', b: '2' }, value: 7 }],
    ['+Inf', 'le_bucket{le="+Inf"} +Inf', { name: 'le_bucket', labels: { le: '+Inf' }, value: Infinity }],
    ['an exponent', 'x 1.5e3', { name: 'x', labels: {}, value: 1500 }],
    ['a brace in a value', 'x{a="}"} 1', { name: 'x', labels: { a: '}' }, value: 1 }],
  ])('reads a sample with %s', (_, line, sample) => {
    expect(parseSamples(`# HELP x help\n\n${line}\n`)).toEqual([sample]);
  });

  it.each([
    ['no value', 'x{a="1"}'],
    ['an unclosed label set', 'x{a="1" 3'],
    ['an unquoted label value', 'x{a=1} 3'],
    ['a value that is no number', 'x 3m'],
    ['an unknown escape', 'x{a="\\t"} 1'],
    ['an HTML page', '<html><body>Not found</body></html>'],
  ])('refuses %s, naming the line', (_, line) => {
    expect(() => parseSamples(`# TYPE x counter\n${line}\n`)).toThrow(/^line 2: not a sample: /);
  });
});
