import { describe, expect, it } from 'vitest';
import { compareRuns, parseThreshold } from '../../src/bench/compare.js';
import { memory, rounds, run, speed } from './sample-runs.js';

const verdictOf = (before: ReturnType<typeof speed>, after: ReturnType<typeof speed>, threshold = 0.1) =>
  compareRuns(run([before]), run([after]), threshold).rows[0];

describe('compareRuns: a regression is a drop beyond the threshold AND beyond the noise', () => {
  it.each([
    { case: 'same ratios', before: rounds(1, 0.02), after: rounds(1, 0.02), verdict: 'unchanged' },
    {
      case: 'a 5% drop, under a 10% threshold',
      before: rounds(1, 0.01),
      after: rounds(0.95, 0.01),
      verdict: 'within threshold',
    },
    { case: 'a 5% drop inside the noise', before: rounds(1, 0.2), after: rounds(0.95, 0.2), verdict: 'unchanged' },
    { case: 'a 30% drop, tight rounds', before: rounds(1, 0.02), after: rounds(0.7, 0.02), verdict: 'regressed' },
    {
      case: 'a 30% drop inside wide noise',
      before: [0.5, 1.5, 0.6, 1.4, 1, 0.55, 1.45],
      after: [0.7, 1.4, 0.45, 1.5, 0.7, 0.5, 1.3],
      verdict: 'within noise',
    },
    { case: 'a 30% gain', before: rounds(1, 0.02), after: rounds(1.3, 0.02), verdict: 'improved' },
  ])('$case: $verdict', ({ before, after, verdict }) => {
    expect(verdictOf(speed('token-bucket/hot-key', before), speed('token-bucket/hot-key', after))?.verdict).toBe(
      verdict,
    );
  });

  it('reports the change of the ratio and the p-value of the drop', () => {
    const row = verdictOf(speed('gcra/hot-key', rounds(1, 0.02)), speed('gcra/hot-key', rounds(0.7, 0.02)));
    expect(row?.change).toBeCloseTo(-0.3, 10);
    expect(row?.pWorse).toBeCloseTo(1 / 3432, 10); // all 7 below all 7: one split of C(14, 7)
  });

  it('needs enough rounds: with 3 each even a total separation is not significant at 0.05', () => {
    const row = verdictOf(speed('gcra/hot-key', [1, 1.01, 0.99]), speed('gcra/hot-key', [0.5, 0.51, 0.49]));
    expect(row?.verdict).toBe('within noise');
  });

  it('judges memory (lower is better, one probe) by the threshold alone', () => {
    const grown = compareRuns(run([memory('gcra', 56)]), run([memory('gcra', 70)]), 0.1);
    expect(grown.rows[0]).toMatchObject({ verdict: 'regressed', pWorse: undefined });
    expect(grown.regressions).toBe(1);
    expect(compareRuns(run([memory('gcra', 56)]), run([memory('gcra', 58)]), 0.1).rows[0]?.verdict).toBe('unchanged');
    expect(compareRuns(run([memory('gcra', 70)]), run([memory('gcra', 56)]), 0.1).rows[0]?.verdict).toBe('improved');
  });

  it('lists figures only one side has, without counting them as regressions', () => {
    const comparison = compareRuns(
      run([speed('gcra/hot-key', rounds(1, 0))]),
      run([speed('token-bucket/hot-key', rounds(1, 0))]),
      0.1,
    );
    expect(comparison.rows.map((row) => [row.name, row.verdict])).toEqual([
      ['token-bucket/hot-key', 'new'],
      ['gcra/hot-key', 'gone'],
    ]);
    expect(comparison.regressions).toBe(0);
  });

  it('counts every regressed figure', () => {
    const before = run([
      speed('a/hot-key', rounds(1, 0.01)),
      speed('b/hot-key', rounds(1, 0.01)),
      speed('c/hot-key', rounds(1, 0.01)),
    ]);
    const after = run([
      speed('a/hot-key', rounds(0.5, 0.01)),
      speed('b/hot-key', rounds(1, 0.01)),
      speed('c/hot-key', rounds(0.6, 0.01)),
    ]);
    expect(compareRuns(before, after, 0.3).regressions).toBe(2);
  });
});

describe('parseThreshold', () => {
  it.each([
    ['10%', 0.1],
    ['35%', 0.35],
    [' 2.5 % ', 0.025],
    ['0%', 0],
  ])('%s -> %s', (text, value) => expect(parseThreshold(text)).toBeCloseTo(value, 12));

  it.each(['10', '-5%', '100%', 'ten%', ''])('refuses %j, naming the flag', (text) => {
    expect(() => parseThreshold(text)).toThrow(/^--max-regression: expected a percentage/);
  });
});
